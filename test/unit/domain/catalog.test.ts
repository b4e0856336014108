import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { eventCatalog } from '../../../src/domain/catalog.js';
import { conversationStreamEventTypes } from '../../../src/domain/conversations/events.js';
import { SENTENCE_EVENT_TYPES } from '../../../web/dashboard/src/lib/eventSentences.js';
import { ACTION_CALL_EVENT_TYPES } from '../../../web/dashboard/src/lib/actionCalls.js';
import { actionCallEvents } from '../../../src/domain/conversations/actionCalls.js';

/**
 * No hand-kept lists of event types. The one list is the `<aggregate>Events` schemas in each src/domain/**\/events.ts:
 * the catalog merges them (and this test fails when one is left out), the replay CLI's lines are typed by them
 * (src/cli/describeEvent.ts does not compile without a line per conversation event), and the dashboard, which
 * cannot import server code, is checked here to have a sentence for exactly the conversation events.
 */
const domain = new URL('../../../src/domain/', import.meta.url).pathname;

const eventsFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? eventsFiles(join(dir, e.name)) : e.name === 'events.ts' ? [join(dir, e.name)] : [],
  );

/** Every exported `...Events` object of zod schemas in src/domain: the event types each aggregate defines. */
async function definedEventSchemas(): Promise<{ file: string; type: string; schema: z.ZodType }[]> {
  const out: { file: string; type: string; schema: z.ZodType }[] = [];
  for (const file of eventsFiles(domain)) {
    const module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(module)) {
      if (!name.endsWith('Events') || typeof value !== 'object' || value === null) continue;
      for (const [type, schema] of Object.entries(value)) {
        if (schema instanceof z.ZodType) out.push({ file: relative(domain, file), type, schema });
      }
    }
  }
  return out;
}

describe('the event catalog', () => {
  it('holds every event type an aggregate defines, with its schema', async () => {
    const defined = await definedEventSchemas();
    const missing = defined.filter((d) => eventCatalog[d.type] !== d.schema).map((d) => `${d.type} (src/domain/${d.file})`);
    expect(missing, 'register these in src/domain/catalog.ts').toEqual([]);
    expect(defined.length).toBe(Object.keys(eventCatalog).length);
  });

  it('holds nothing else', async () => {
    const defined = new Set((await definedEventSchemas()).map((d) => d.type));
    expect(Object.keys(eventCatalog).filter((type) => !defined.has(type))).toEqual([]);
  });

  it('has a dashboard sentence for exactly the events a conversation stream holds (web/dashboard/src/lib/eventSentences.ts)', () => {
    expect([...SENTENCE_EVENT_TYPES].sort()).toEqual([...conversationStreamEventTypes].sort());
    for (const type of SENTENCE_EVENT_TYPES) expect(eventCatalog[type], type).toBeDefined();
  });

  it("has the dashboard's action-call event types (web/dashboard/src/lib/actionCalls.ts) be exactly a call's events", () => {
    expect([...ACTION_CALL_EVENT_TYPES].sort()).toEqual(Object.keys(actionCallEvents).sort());
  });
});
