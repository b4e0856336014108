import type { RenderedRequest } from '../domain/actions/definition.js';

/**
 * Makes one action's HTTP call to a URL a company chose, through the outbound guard (https in production, no
 * private addresses unless allowed, checked at connect time, no redirects), with one timeout for the whole
 * exchange and a capped response. Never throws. Header values are plain here and nowhere else: they never
 * appear in a result.
 */
export interface ActionHttpRequest extends RenderedRequest {
  headers: { name: string; value: string }[];
  /** Sent as `Idempotency-Key`: the same on every attempt of one call, so the company's API can refuse a repeat. */
  idempotencyKey: string;
  timeoutMs: number;
}

export type ActionHttpResult =
  | {
      ok: true;
      status: number;
      durationMs: number;
      /** The response body as text, capped. */
      body: string;
      /** The body went on past the cap: `body` is its beginning (a 2xx is a success whatever its size). */
      cut?: boolean;
    }
  | { ok: false; status: number | null; durationMs: number; /** In plain words: no address, header value or stack. */ error: string };

export interface ActionCaller {
  call(request: ActionHttpRequest): Promise<ActionHttpResult>;
}
