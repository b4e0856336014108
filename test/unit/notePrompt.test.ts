import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ConversationEvent } from '../../src/domain/conversations/events.js';
import { buildPrompt, NOTE_PREFIX } from '../../src/workers/answers/answerGeneration.js';

/** Internal notes reach the model only when the company chose so (PUT /api/settings/notes), marked as the team's. */
const at = '2026-01-01T00:00:00.000Z';
const asked = randomUUID();
const events: ConversationEvent[] = [
  { type: 'MessageReceived', data: { messageId: randomUUID(), dedupeKey: 'k1', dedupeUntil: null, text: 'first question', platform: {}, at } },
  { type: 'NoteAdded', data: { noteId: randomUUID(), authorId: randomUUID(), text: 'VIP customer, refund approved', mentions: [], at } },
  { type: 'MessageReceived', data: { messageId: asked, dedupeKey: 'k2', dedupeUntil: null, text: 'where is my refund?', platform: {}, at } },
];

describe('internal notes in the prompt', () => {
  it('are left out by default: no turn of the prompt holds the note', () => {
    const prompt = buildPrompt({ systemPrompt: 'You are Ava.' }, events, [asked]);
    expect(prompt.map((m) => m.content).join('\n')).not.toContain('VIP customer');
    expect(prompt).toHaveLength(3);
  });

  it('are a system turn, marked as the team\'s, when the company shares them', () => {
    const prompt = buildPrompt({ systemPrompt: 'You are Ava.' }, events, [asked], { notes: true });
    expect(prompt).toContainEqual({ role: 'system', content: `${NOTE_PREFIX}VIP customer, refund approved` });
    expect(prompt.at(-1)).toEqual({ role: 'user', content: 'where is my refund?' });
  });
});
