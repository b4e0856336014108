import { DomainError } from '../domain/errors.js';
import { deterministicId } from '../domain/ids.js';
import type { RecordedEvent } from '../ports/eventStore.js';
import type { CommandDeps } from './deps.js';
import { sha256Hex } from './hashing.js';

/**
 * Starting a paid run (a replay, a test run, a release check) under a client's `Idempotency-Key`: a client that
 * sends the request again after a lost answer must find the first run, not start (and pay for) a second one.
 *
 * The key names the run: its id is derived from the company, the kind of start and the key, and the run's first
 * event is appended to a stream that does not exist yet ("no stream"), which every event store enforces — not a
 * unique event id, which EventStoreDB recognises only when retried at the same expected revision. Two requests
 * racing with one key: one appends, the other's append conflicts and it answers with the run the first started.
 * The run's first event keeps a hash of the request, so the key sent again with another request is refused
 * instead of answering with a run the client did not ask for.
 */

export type StartKind = 'replay' | 'test-run' | 'release-check' | 'operator-message' | 'note';

/** The id a key gives a run of one kind, of one company; `part` names a second stream of the same start. */
export const idForKey = (companyId: string, kind: StartKind, key: string, part = 'run') =>
  deterministicId(`idempotency-key\u0000${companyId}\u0000${kind}\u0000${part}\u0000${key}`);

/** A request's fingerprint: its JSON with object keys sorted, so the order a client wrote them in does not matter. */
export function requestHashOf(request: unknown): string {
  const sorted = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sorted)
      : v && typeof v === 'object'
        ? Object.fromEntries(Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, x]) => [k, sorted(x)]))
        : v;
  return sha256Hex(JSON.stringify(sorted(request) ?? null));
}

/** A client's key for one start and the hash of the request it came with (requestHashOf). */
export interface IdempotencyKey {
  key: string;
  requestHash: string;
}

/** A stream's first event (the run's start), or undefined when the stream does not exist. */
export async function firstEventOf<D>(deps: Pick<CommandDeps, 'eventStore'>, stream: string): Promise<RecordedEvent<string, D> | undefined> {
  const [first] = await deps.eventStore.readStream(stream, { maxCount: 1 });
  return first as RecordedEvent<string, D> | undefined;
}

/**
 * Starts once under a key: `first` reads the start of the run the key names. True when the run already
 * existed (the caller answers with it as it is now); a run started with another request is refused.
 */
export async function startOnce(key: IdempotencyKey, first: () => Promise<RecordedEvent<string, { requestHash?: string }> | undefined>, start: () => Promise<unknown>): Promise<boolean> {
  const existing = async () => {
    const started = await first();
    if (!started) return false;
    if (started.data.requestHash !== key.requestHash) {
      throw new DomainError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used for a different request: send a new key with a new request');
    }
    return true;
  };
  if (await existing()) return true;
  try {
    await start();
    return false;
  } catch (err) {
    // Another request with the key appended first ("already exists"): answer with its run.
    if (err instanceof DomainError && err.code === 'CONFLICT' && (await existing())) return true;
    throw err;
  }
}
