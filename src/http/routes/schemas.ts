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

export const listQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(1024).optional(),
});
