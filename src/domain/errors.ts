/**
 * Typed domain errors. The HTTP layer maps `code` to a status in one place; the domain knows no HTTP.
 */
export type DomainErrorCode =
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'VALIDATION_ERROR'
  | 'FORBIDDEN'
  | 'INVALID_STATE'
  | 'RATE_LIMITED';

export class DomainError extends Error {
  override readonly name = 'DomainError';
  constructor(
    readonly code: DomainErrorCode | (string & {}),
    message: string,
    /** What a client needs to act on the refusal (which cases failed): answered as `error.details`. */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}
