/** Raised by every EventStore adapter when the expected revision does not match the stream. */
export class WrongExpectedRevisionError extends Error {
  override readonly name: string = 'WrongExpectedRevisionError';
  constructor(
    readonly stream: string,
    readonly expected: string,
    readonly actual: string,
  ) {
    super(`stream ${stream}: expected revision ${expected}, actual ${actual}`);
  }
}

/**
 * An append carried an event id that is already stored (elsewhere than as an exact retry). Deterministic ids
 * derive from dedupe keys, so for those commands this means "already done": the store's unique id index is
 * the dedupe that needs no state growing with the stream.
 */
export class EventIdConflictError extends WrongExpectedRevisionError {
  override readonly name = 'EventIdConflictError';
  constructor(
    stream: string,
    expected: string,
    readonly eventId: string,
    readonly storedIn: string | null,
  ) {
    super(stream, expected, `event id ${eventId} ${storedIn === null ? 'given twice in one append' : `already stored in stream ${storedIn}`}`);
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

/**
 * The store could not take its write lock in time (another process or thread kept it): nothing of the append
 * was written, and it may be retried. HTTP answers 503 with Retry-After.
 */
export class StoreBusyError extends Error {
  override readonly name = 'StoreBusyError';
  readonly code = 'STORE_BUSY';
  constructor(waitedMs: number) {
    super(`the event store's write lock was held elsewhere for ${waitedMs} ms; nothing was written`);
  }
}
