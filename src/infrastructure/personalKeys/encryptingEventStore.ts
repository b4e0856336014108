import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { EventStore, NewEvent, RecordedEvent } from '../../ports/eventStore.js';
import { CorruptEventError } from '../../ports/errors.js';
import type { PersonalDataKey, PersonalDataKeys } from '../../ports/personalDataKeys.js';
import { cachePersonalDataKeys, isCachedPersonalDataKeys } from './cachedPersonalDataKeys.js';
import { ERASED_TEXT, personalDataSpecs, readPath, writePath, type PersonalDataSpec } from '../../domain/personalData.js';

/**
 * Crypto-shredding around any event store (docs/erasure.md). On append, the personal fields of an event
 * (domain/personalData.ts) leave its data and are stored AES-256-GCM encrypted, under the key of the scope they
 * belong to, in one envelope field:
 *
 *   { ...the other fields, "$pii": { "k": "<key id>", "p": ["text", "attachments"], "c": "<base64 iv|tag|ciphertext>" } }
 *
 * On read the fields come back; once the key is erased they read as their erased value (`[erased]`, empty, or
 * absent), and the event keeps its type, position, ids and counts. Events stored before this decorator, and
 * events of a scope that never had a key (a conversation started before it), stay as they were: plain. A scope
 * whose subject was erased keeps a tombstone (ports/personalDataKeys.ts): what its customer writes afterwards
 * is encrypted under a new key, which the next erasure removes.
 *
 * Per event the cost is constant: one AES-GCM operation on a few fields and a key lookup answered from a bounded
 * LRU cache (cachedPersonalDataKeys.ts). An erasure in this process clears the cache at once; other processes
 * clear theirs when they read the CustomerErased event, and no cached live key is trusted longer than its TTL.
 */
export const ENVELOPE_FIELD = '$pii';

interface Envelope {
  k: string;
  p: string[];
  c: string;
}

const ALGORITHM = 'aes-256-gcm';

function seal(key: Buffer, aad: string, plain: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv(ALGORITHM, key, iv);
  cipher.setAAD(Buffer.from(aad));
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

function open(key: Buffer, aad: string, sealed: string): Buffer {
  const bytes = Buffer.from(sealed, 'base64');
  const decipher = createDecipheriv(ALGORITHM, key, bytes.subarray(0, 12));
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(bytes.subarray(12, 28));
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]);
}

const isEnvelope = (v: unknown): v is Envelope =>
  !!v && typeof v === 'object' && typeof (v as Envelope).k === 'string' && Array.isArray((v as Envelope).p) && typeof (v as Envelope).c === 'string';

/** Erasure is the only way a key goes: seen in the log, every cached key of this process is dropped. */
const ERASURE_EVENT = 'CustomerErased';

export function encryptingEventStore(inner: EventStore, store: PersonalDataKeys): EventStore {
  const keys = isCachedPersonalDataKeys(store) ? store : cachePersonalDataKeys(store);
  const keyOfScope = async (scope: string, spec: PersonalDataSpec, data: Record<string, unknown>): Promise<PersonalDataKey | null> => {
    const current = await keys.currentKey(scope);
    if (current) return current;
    if (spec.subject) return keys.createKey(scope, spec.subject(data));
    // No key, and not the scope's opening event: an erased scope (a tombstone) still knows its subject — the
    // customer wrote again after the erasure, and that new data gets a new key, never the plain log.
    const subject = await keys.subjectOf(scope);
    return subject ? keys.createKey(scope, subject) : null;
  };

  const encode = async (stream: string, e: NewEvent): Promise<NewEvent> => {
    const spec = personalDataSpecs[e.type];
    if (!spec || !e.data || typeof e.data !== 'object') return e;
    let data = e.data as Record<string, unknown>;
    const fields: Record<string, unknown> = {};
    for (const path of Object.keys(spec.fields)) {
      const value = readPath(data, path);
      if (value === undefined) continue;
      fields[path] = value;
    }
    const paths = Object.keys(fields);
    if (paths.length === 0) return e;
    const scope = spec.keyScope ? spec.keyScope(data, stream) : stream;
    if (scope === null) return e;
    const key = await keyOfScope(scope, spec, data);
    // A scope opened before encryption existed (never keyed, no opening event here): its events stay plain.
    if (!key) return e;
    for (const path of paths) data = writePath(data, path, undefined);
    const envelope: Envelope = { k: key.keyId, p: paths, c: seal(key.key, e.type, Buffer.from(JSON.stringify(fields))) };
    return { ...e, data: { ...data, [ENVELOPE_FIELD]: envelope } };
  };

  const decode = async (e: RecordedEvent): Promise<RecordedEvent> => {
    if (e.type === ERASURE_EVENT) keys.forget();
    const data = e.data as Record<string, unknown> | null;
    if (!data || typeof data !== 'object') return e;
    const envelope = data[ENVELOPE_FIELD];
    if (envelope === undefined) return e;
    if (!isEnvelope(envelope)) throw new CorruptEventError(e.stream, e.position, e.type, `${ENVELOPE_FIELD}: not an envelope`);
    let out: Record<string, unknown> = { ...data };
    delete out[ENVELOPE_FIELD];
    const key = await keys.keyById(envelope.k);
    if (!key) {
      const spec = personalDataSpecs[e.type];
      for (const path of envelope.p) out = writePath(out, path, spec && path in spec.fields ? spec.fields[path] : ERASED_TEXT);
      return { ...e, data: out };
    }
    let fields: Record<string, unknown>;
    try {
      fields = JSON.parse(open(key, e.type, envelope.c).toString('utf8')) as Record<string, unknown>;
    } catch {
      // Never a value in the message: the event's personal data is what it protects.
      throw new CorruptEventError(e.stream, e.position, e.type, `${ENVELOPE_FIELD}: cannot be decrypted with its key`);
    }
    for (const path of envelope.p) out = writePath(out, path, fields[path]);
    return { ...e, data: out };
  };

  const decodeAll = async (events: RecordedEvent[]) => {
    const out: RecordedEvent[] = new Array(events.length);
    for (let i = 0; i < events.length; i++) out[i] = await decode(events[i]!);
    return out;
  };

  return {
    append: async (stream, events, expected) => {
      const encoded: NewEvent[] = [];
      for (const e of events) encoded.push(await encode(stream, e));
      return inner.append(stream, encoded, expected);
    },
    readStream: async (stream, opts) => decodeAll(await inner.readStream(stream, opts)),
    readAll: async (opts) => decodeAll(await inner.readAll(opts)),
    subscribe: (opts, handler) => inner.subscribe(opts, async (events) => handler(await decodeAll(events))),
    headPosition: () => inner.headPosition(),
    // The key store is the caller's: it outlives (and is closed after) the event store.
    close: () => inner.close(),
  };
}
