import { playgroundEvents } from '../../domain/playground/events.js';
import { playgroundIdOfStream } from '../../domain/playground/decider.js';
import type { Doc } from '../../ports/readStore.js';
import { defineProjection } from '../projection.js';

/**
 * Playground sessions, so a teammate can find one again (GET /api/playground): per company, newest activity
 * first, optionally of one agent. The turns themselves stay on the session's stream (a session is short and read
 * whole); this holds only what a list shows.
 */
export interface PlaygroundSessionDoc extends Doc {
  companyId: string;
  agentId: string;
  /** `user:<id>`, as on the event. */
  startedBy: string;
  startedAt: string;
  questionCount: number;
  /** The session's first question, shortened: what the list calls the session by. */
  firstQuestion: string | null;
  lastQuestionAt: string | null;
  /** The newest question, answer or failure (startedAt before the first question): the list's order. */
  lastActivityAt: string;
}

export const PLAYGROUND_SESSIONS = 'playgroundSessions';
/** Characters of the first question kept for the list. */
export const FIRST_QUESTION_CHARS = 120;

export const playgroundSessionsProjection = defineProjection(playgroundEvents, {
  name: 'playgroundSessions',
  collections: [{ name: PLAYGROUND_SESSIONS, indexes: [['companyId', 'lastActivityAt'], ['companyId', 'agentId', 'lastActivityAt']] }],
  eventTypes: ['PlaygroundStarted', 'PlaygroundQuestionAsked', 'PlaygroundAnswered', 'PlaygroundAnswerFailed'],
  async apply(event, ctx) {
    const id = playgroundIdOfStream(event.stream);
    if (event.type === 'PlaygroundStarted') {
      const d = event.data;
      ctx.put(PLAYGROUND_SESSIONS, {
        id,
        companyId: d.companyId,
        agentId: d.agentId,
        startedBy: d.startedBy,
        startedAt: d.at,
        questionCount: 0,
        firstQuestion: null,
        lastQuestionAt: null,
        lastActivityAt: d.at,
      } satisfies PlaygroundSessionDoc);
      return;
    }
    const doc = await ctx.get<PlaygroundSessionDoc>(PLAYGROUND_SESSIONS, id);
    if (!doc) return;
    // Activity only moves forward, whatever the order two writers' timestamps landed in.
    const latest = (at: string) => (at > doc.lastActivityAt ? at : doc.lastActivityAt);
    switch (event.type) {
      case 'PlaygroundQuestionAsked':
        ctx.put(PLAYGROUND_SESSIONS, {
          ...doc,
          questionCount: doc.questionCount + 1,
          firstQuestion: doc.firstQuestion ?? shorten(event.data.text),
          lastQuestionAt: event.data.at,
          lastActivityAt: latest(event.data.at),
        } satisfies PlaygroundSessionDoc);
        return;
      case 'PlaygroundAnswered':
      case 'PlaygroundAnswerFailed':
        ctx.put(PLAYGROUND_SESSIONS, { ...doc, lastActivityAt: latest(event.data.at) } satisfies PlaygroundSessionDoc);
    }
  },
});

function shorten(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length <= FIRST_QUESTION_CHARS ? oneLine : `${oneLine.slice(0, FIRST_QUESTION_CHARS - 1)}…`;
}
