/** Sends one signed outbound webhook (Standard Webhooks) to a URL a company chose, through the outbound guard. */
export interface WebhookRequest {
  url: string;
  /** The `webhook-id` header: the public event's id, the same on every attempt. */
  id: string;
  timestamp: Date;
  /** The exact JSON body that is signed and sent. */
  body: string;
  /** Plain `whsec_…` secrets: each one signs (the current one, and the previous during a rotation's grace). */
  secrets: string[];
}

export interface WebhookResponse {
  /** A 2xx answer. */
  ok: boolean;
  /** null when no answer came (timeout, refused address, connection error). */
  httpStatus: number | null;
  latencyMs: number;
  /** The first bytes of the answer, or what went wrong. */
  response: string;
}

export interface WebhookSender {
  send(request: WebhookRequest): Promise<WebhookResponse>;
}
