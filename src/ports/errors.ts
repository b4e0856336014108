/** Raised by every EventStore adapter when the expected revision does not match the stream. */
export class WrongExpectedRevisionError extends Error {
  override readonly name = 'WrongExpectedRevisionError';
  constructor(
    readonly stream: string,
    readonly expected: string,
    readonly actual: string,
  ) {
    super(`stream ${stream}: expected revision ${expected}, actual ${actual}`);
  }
}

/** An event that cannot be decoded: unknown type or data failing its schema. Never skipped silently. */
export class CorruptEventError extends Error {
  override readonly name = 'CorruptEventError';
  constructor(
    readonly stream: string,
    readonly position: bigint | null,
    readonly eventType: string,
    reason: string,
  ) {
    super(
      `event ${eventType} in stream ${stream}${position === null ? '' : ` at position ${position}`} is invalid: ${reason}`,
    );
  }
}
