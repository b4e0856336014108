/** An error the HTTP layer answers with its own status and code, in the spec's `{error:{code,message}}` shape. */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

export const notFound = (what = 'Resource') => new HttpError(404, 'NOT_FOUND', `${what} not found`);
export const unauthorized = (message = 'Missing or invalid bearer token') => new HttpError(401, 'UNAUTHORIZED', message);
export const forbidden = (message = 'Forbidden') => new HttpError(403, 'FORBIDDEN', message);
export const validationError = (message: string) => new HttpError(400, 'VALIDATION_ERROR', message);

/** Domain error codes → HTTP statuses, in one place. */
export const domainStatus: Record<string, number> = {
  NOT_FOUND: 404,
  CONFLICT: 409,
  VALIDATION_ERROR: 400,
  FORBIDDEN: 403,
  INVALID_STATE: 409,
  /** The release gate (domain/agents/releaseGate.ts). */
  RELEASE_CHECKS_REQUIRED: 409,
  RELEASE_CHECKS_PENDING: 409,
  RELEASE_CHECKS_FAILED: 409,
  QUOTA_EXCEEDED: 409,
  /** An Idempotency-Key sent again with another request (idempotencyKey.ts). */
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMITED: 429,
  INVALID_CREDENTIALS: 401,
  REFRESH_FAILED: 401,
  UNAUTHORIZED: 401,
  USER_CREATION_FAILED: 500,
  PLATFORM_ERROR: 502,
  not_supported: 400,
  PAYLOAD_TOO_LARGE: 413,
  LLM_ERROR: 502,
  /** A paid LLM call with the credits spent (the agent playground; a customer's reply pauses the session instead). */
  CREDITS_EXHAUSTED: 402,
  EMAIL_TAKEN: 409,
  LAST_OWNER: 409,
  INVITATION_USED: 410,
  INVITATION_REVOKED: 410,
  INVITATION_EXPIRED: 410,
  INTERNAL_ERROR: 500,
};
