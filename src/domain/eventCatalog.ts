import type { z } from 'zod';

/** Every event type the system may store, with the zod schema of its data. */
export type EventCatalog = Record<string, z.ZodType>;

/** Builds the catalog from each aggregate's schemas, refusing a type name defined twice. */
export function mergeCatalogs(...parts: EventCatalog[]): EventCatalog {
  const out: EventCatalog = {};
  for (const part of parts) {
    for (const [type, schema] of Object.entries(part)) {
      if (out[type]) throw new Error(`event type ${type} defined twice`);
      out[type] = schema;
    }
  }
  return out;
}
