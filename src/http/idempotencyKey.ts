import type { FastifyReply, FastifyRequest } from 'fastify';
import { requestHashOf, type IdempotencyKey } from '../commands/idempotentStart.js';
import { validationError } from './errors.js';

/**
 * The `Idempotency-Key` header of a paid start (replays, test runs, release checks), as the IETF draft
 * (draft-ietf-httpapi-idempotency-key-header) and Stripe use it: 1–255 visible ASCII characters, quoted or not.
 * The request it came with is its route, path parameters and body (validated, so defaults are filled in).
 */
export function idempotencyKeyOf(request: FastifyRequest): IdempotencyKey | undefined {
  const raw = request.headers['idempotency-key'];
  if (raw === undefined) return undefined;
  const key = typeof raw === 'string' ? raw.replace(/^"(.*)"$/, '$1') : '';
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) throw validationError('Idempotency-Key must be 1 to 255 visible ASCII characters');
  return { key, requestHash: requestHashOf({ route: request.routeOptions.url, params: request.params, body: request.body ?? null }) };
}

/** A start answered from the run its key had already started: said so, as Stripe does. */
export function markRepeated(reply: FastifyReply, repeated: boolean): FastifyReply {
  return repeated ? reply.header('idempotent-replayed', 'true') : reply;
}
