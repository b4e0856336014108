import { answerKey } from '../../domain/replays/state.js';
import {
  REPLAY_LIMITS,
  replayEvents,
  type DraftAnswer,
  type RecordedAnswer,
  type ReplayConversation,
  type ReplayDraft,
  type ReplayStatus,
} from '../../domain/replays/events.js';
import type { Doc } from '../../ports/readStore.js';
import { defineProjection } from '../projection.js';

/** A replay evaluation with its progress (done/total), updated as answers land. */
export interface ReplayDoc extends Doc {
  companyId: string;
  status: ReplayStatus;
  requestedBy: string | null;
  draft: ReplayDraft;
  llm: { kind: 'builtin' | 'openai'; model: string };
  conversations: ReplayConversation[];
  total: number;
  done: number;
  /** Answers whose LLM call failed (counted in done). */
  failedAnswers: number;
  estimatedCostMicros: number;
  /** What the draft's answers cost so far (their provenance). */
  spentCostMicros: number;
  inputTokens: number;
  outputTokens: number;
  failure: { reason: string; message: string } | null;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
}

/** One replayed customer turn: the recorded answer next to the draft's. */
export interface ReplayAnswerDoc extends Doc {
  replayId: string;
  companyId: string;
  conversationId: string;
  /** Conversation order in the replay, then turn: the comparison's order. */
  order: number;
  turn: number;
  messageIds: string[];
  customerText: string;
  customerAt: string;
  recorded: RecordedAnswer;
  draft: DraftAnswer;
  at: string;
}

export const REPLAYS = 'replays';
export const REPLAY_ANSWERS = 'replayAnswers';

export const replaysProjection = defineProjection(replayEvents, {
  name: 'replays',
  collections: [
    { name: REPLAYS, indexes: [['companyId', 'createdAt'], 'status'] },
    { name: REPLAY_ANSWERS, indexes: [['replayId', 'order']] },
  ],
  eventTypes: ['ReplayRequested', 'ReplayAnswerRecorded', 'ReplayFailed', 'ReplayCompleted', 'ReplayCancelled'],
  async apply(event, ctx) {
    const id = event.stream.slice('replay-'.length);
    if (event.type === 'ReplayRequested') {
      const d = event.data;
      ctx.put(REPLAYS, {
        id,
        companyId: d.companyId,
        status: 'running',
        requestedBy: d.requestedBy,
        draft: d.draft,
        llm: d.llm,
        conversations: d.conversations,
        total: d.total,
        done: 0,
        failedAnswers: 0,
        estimatedCostMicros: d.estimatedCostMicros,
        spentCostMicros: 0,
        inputTokens: 0,
        outputTokens: 0,
        failure: null,
        createdAt: d.at,
        updatedAt: d.at,
        finishedAt: null,
      } satisfies ReplayDoc);
      return;
    }
    const doc = await ctx.get<ReplayDoc>(REPLAYS, id);
    if (!doc) return;
    switch (event.type) {
      case 'ReplayAnswerRecorded': {
        const d = event.data;
        const answered = d.draft.status === 'answered' ? d.draft : null;
        ctx.put(REPLAYS, {
          ...doc,
          done: doc.done + 1,
          failedAnswers: doc.failedAnswers + (answered ? 0 : 1),
          spentCostMicros: doc.spentCostMicros + (answered?.provenance.costMicros ?? 0),
          inputTokens: doc.inputTokens + (answered?.inputTokens ?? 0),
          outputTokens: doc.outputTokens + (answered?.outputTokens ?? 0),
          updatedAt: d.at,
        } satisfies ReplayDoc);
        const conversationIndex = doc.conversations.findIndex((c) => c.conversationId === d.conversationId);
        ctx.put(REPLAY_ANSWERS, {
          id: `${id}:${answerKey(d.conversationId, d.turn)}`,
          replayId: id,
          companyId: doc.companyId,
          conversationId: d.conversationId,
          order: Math.max(0, conversationIndex) * REPLAY_LIMITS.turnsPerConversation + d.turn,
          turn: d.turn,
          messageIds: d.messageIds,
          customerText: d.customerText,
          customerAt: d.customerAt,
          recorded: d.recorded,
          draft: d.draft,
          at: d.at,
        } satisfies ReplayAnswerDoc);
        return;
      }
      case 'ReplayCompleted':
        ctx.put(REPLAYS, { ...doc, status: 'completed', updatedAt: event.data.at, finishedAt: event.data.at });
        return;
      case 'ReplayCancelled':
        ctx.put(REPLAYS, { ...doc, status: 'cancelled', updatedAt: event.data.at, finishedAt: event.data.at });
        return;
      case 'ReplayFailed':
        ctx.put(REPLAYS, {
          ...doc,
          status: 'failed',
          failure: { reason: event.data.reason, message: event.data.message },
          updatedAt: event.data.at,
          finishedAt: event.data.at,
        });
    }
  },
});
