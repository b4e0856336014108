import type { z } from 'zod';
import type { RecordedEvent } from '../ports/eventStore.js';
import type { RecordedEventOf } from '../projections/projection.js';

/**
 * Narrows a stored event to one type of `schemas`, its data typed by that schema: the event store validates
 * every event against its schema when read, so the type name is enough. For processors that follow streams
 * rather than event types (live events); reactors and projections declare their types instead.
 */
export function isEventOf<S extends Record<string, z.ZodType>, K extends keyof S & string>(schemas: S, type: K, event: RecordedEvent): event is RecordedEventOf<S, K> {
  return event.type === type && type in schemas;
}
