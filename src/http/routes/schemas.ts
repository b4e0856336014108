import { z } from 'zod';

/** Every authenticated route declares the bearer scheme in the OpenAPI document. */
export const bearerSecurity = [{ bearer: [] }];

/** `details`: only where a refusal names what to act on (RELEASE_CHECKS_FAILED names the failing cases). */
export const errorBody = z.object({ error: z.object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()).optional() }) });

/** Documented error answers shared by the routes (the error handler produces them). */
export const errorResponses = {
  400: errorBody,
  401: errorBody,
  403: errorBody,
  404: errorBody,
  413: errorBody,
  429: errorBody,
  500: errorBody,
} as const;

/**
 * The `Idempotency-Key` header of paid starts and operator messages (docs/api/README.md#idempotency-keys), declared
 * so the OpenAPI document shows it. Loose: every other header passes through untouched. Its format is checked by
 * idempotencyKeyOf (http/idempotencyKey.ts), which answers the documented error.
 */
export const idempotencyKeyHeaders = z.looseObject({
  'idempotency-key': z.string().optional().describe('1–255 visible ASCII characters: sent again with the same request, answers with what the first started (`Idempotent-Replayed: true`)'),
});

export const listQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(1024).optional(),
});
