import type { EventStore, NewEvent, RecordedEvent } from '../ports/eventStore.js';
import { CorruptEventError } from '../ports/errors.js';
import type { EventCatalog } from '../domain/catalog.js';

/**
 * Wraps any adapter so every event is checked against its zod schema when written and when read:
 * an unknown type or bad data fails loudly with its stream and position instead of being skipped.
 */
export function validatingEventStore(inner: EventStore, catalog: EventCatalog): EventStore {
  const decode = (e: RecordedEvent): RecordedEvent => {
    const schema = catalog[e.type];
    if (!schema) throw new CorruptEventError(e.stream, e.position, e.type, 'unknown event type');
    const parsed = schema.safeParse(e.data);
    if (!parsed.success) throw new CorruptEventError(e.stream, e.position, e.type, parsed.error.issues.map(describeIssue).join('; '));
    return { ...e, data: parsed.data };
  };
  const encode = (stream: string, e: NewEvent): NewEvent => {
    const schema = catalog[e.type];
    if (!schema) throw new CorruptEventError(stream, null, e.type, 'unknown event type');
    const parsed = schema.safeParse(e.data);
    if (!parsed.success) throw new CorruptEventError(stream, null, e.type, parsed.error.issues.map(describeIssue).join('; '));
    return { ...e, data: parsed.data };
  };
  return {
    append: async (stream, events, expected) => inner.append(stream, events.map((e) => encode(stream, e)), expected),
    readStream: async (stream, options) => (await inner.readStream(stream, options)).map(decode),
    readAll: async (options) => (await inner.readAll(options)).map(decode),
    subscribe: (options, handler) => inner.subscribe(options, (events) => handler(events.map(decode))),
    headPosition: () => inner.headPosition(),
    close: () => inner.close(),
  };
}

// Issue paths only, never values: event data may hold encrypted secrets and must not leak into errors.
const describeIssue = (i: { path: PropertyKey[]; message: string }) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`;
