import { agentIdOfStream } from '../../domain/agents/decider.js';
import { agentEvents } from '../../domain/agents/events.js';
import type { ExperimentArm, ExperimentAssignment } from '../../domain/agents/experiments.js';
import { emptyHistogram, record, type Histogram } from '../analytics/histogram.js';
import { conversationIdOfStream } from '../../domain/conversations/decider.js';
import { conversationEvents } from '../../domain/conversations/events.js';
import { creditEvents } from '../../domain/credits/events.js';
import type { Doc } from '../../ports/readStore.js';
import { defineProjection, type ProjectionContext, type RecordedEventOf } from '../projection.js';

/** What one arm (or the holdout) counted: conversations, and how many of them ended each way. */
export interface ArmCounts {
  /** Conversations that joined the arm. */
  conversations: number;
  /** Of them, resolved by the AI: an AI session closed with an AI answer and no person involved. */
  aiResolved: number;
  /** Of them, handed to people at least once (the holdout: all of them). */
  handedOff: number;
  /** The first response each got after joining (the AI's, or a person's in the holdout). */
  firstResponse: Histogram;
  firstResponseTotalMs: number;
  /** Credits their replies (and summaries) cost, in micros. */
  costMicros: number;
}

/** One experiment (id: the experiment id), newest first per agent by `seq` (the agent stream's revision). */
export interface AgentExperimentDoc extends Doc {
  agentId: string;
  companyId: string;
  seq: number;
  status: 'running' | 'ended';
  arms: { arm: ExperimentArm; version: number; share: number }[];
  holdout: number;
  confidenceLevel: number;
  startedAt: string;
  startedBy: string | null;
  endedAt: string | null;
  endedBy: string | null;
  winner: number | null;
  reason: string | null;
  counts: Record<ExperimentAssignment, ArmCounts>;
}

/** A conversation in an experiment (id: the conversation id): constant size, whatever its length. */
export interface ExperimentConversationDoc extends Doc {
  experimentId: string;
  arm: ExperimentAssignment;
  /** When the customer began to wait for the first answer after joining; null once it came. */
  waitingSince: string | null;
  handedOff: boolean;
  resolved: boolean;
  sessionAiReplied: boolean;
  sessionHumanInvolved: boolean;
}

export const AGENT_EXPERIMENTS = 'agentExperiments';
export const EXPERIMENT_CONVERSATIONS = 'experimentConversations';

export const emptyCounts = (): ArmCounts => ({ conversations: 0, aiResolved: 0, handedOff: 0, firstResponse: emptyHistogram(), firstResponseTotalMs: 0, costMicros: 0 });

const schemas = { ...agentEvents, ...conversationEvents, ...creditEvents };
const CONVERSATION_TYPES = [
  'ExperimentArmAssigned',
  'AgentReplied',
  'OperatorMessageSent',
  'OperatorMessageRecorded',
  'AiSessionPaused',
  'AiSessionClosed',
  'AiSessionOpened',
  'ConversationReopened',
  'HumanRequested',
  'DialogTransferred',
] as const;
type ConversationEvent = RecordedEventOf<typeof schemas, (typeof CONVERSATION_TYPES)[number]>;

type Change = { handedOff?: true; resolved?: true; firstResponseMs?: number };

/** What an event does to a conversation of an experiment, and what the experiment counts for it. */
function follow(doc: ExperimentConversationDoc, event: Exclude<ConversationEvent, { type: 'ExperimentArmAssigned' }>): { next: ExperimentConversationDoc; change: Change } {
  const next = { ...doc };
  const change: Change = {};
  const at = event.data.at;
  const respond = () => {
    if (next.waitingSince === null) return;
    change.firstResponseMs = Math.max(0, Date.parse(at) - Date.parse(next.waitingSince));
    next.waitingSince = null;
  };
  const handOff = () => {
    next.sessionHumanInvolved = true;
    if (!next.handedOff) change.handedOff = next.handedOff = true;
  };
  switch (event.type) {
    case 'AgentReplied': {
      const d = event.data;
      // The holdout's handoff and the message sent because the model failed are nobody's answer.
      const answer = !d.aiFailed && d.handoffCause !== 'experiment_holdout';
      if (answer) {
        respond();
        next.sessionAiReplied = true;
      }
      if (d.handoff) handOff();
      break;
    }
    case 'OperatorMessageSent':
    case 'OperatorMessageRecorded':
      respond();
      next.sessionHumanInvolved = true;
      break;
    case 'AiSessionPaused':
      if (event.data.reason === 'handoff') handOff();
      else next.sessionHumanInvolved = true;
      break;
    case 'HumanRequested':
    case 'DialogTransferred':
      handOff();
      break;
    case 'AiSessionClosed':
      if (next.sessionAiReplied && !next.sessionHumanInvolved && !next.resolved) change.resolved = next.resolved = true;
      next.sessionAiReplied = next.sessionHumanInvolved = false;
      break;
    case 'AiSessionOpened':
    case 'ConversationReopened':
      next.sessionAiReplied = next.sessionHumanInvolved = false;
      break;
  }
  return { next, change };
}

/** `companyId`: count only when the experiment is that company's (a charge names its company's conversation). */
async function count(ctx: ProjectionContext, experimentId: string, arm: ExperimentAssignment, apply: (c: ArmCounts) => ArmCounts, companyId?: string): Promise<void> {
  const experiment = await ctx.get<AgentExperimentDoc>(AGENT_EXPERIMENTS, experimentId);
  if (!experiment || (companyId !== undefined && experiment.companyId !== companyId)) return;
  ctx.put(AGENT_EXPERIMENTS, { ...experiment, counts: { ...experiment.counts, [arm]: apply(experiment.counts[arm]) } });
}

async function applyConversation(event: ConversationEvent, ctx: ProjectionContext): Promise<void> {
  const id = conversationIdOfStream(event.stream);
  if (event.type === 'ExperimentArmAssigned') {
    const { experimentId, arm, waitingSince, at } = event.data;
    const doc: ExperimentConversationDoc = { id, experimentId, arm, waitingSince: waitingSince ?? at, handedOff: false, resolved: false, sessionAiReplied: false, sessionHumanInvolved: false };
    ctx.put(EXPERIMENT_CONVERSATIONS, doc);
    await count(ctx, experimentId, arm, (c) => ({ ...c, conversations: c.conversations + 1 }));
    return;
  }
  const doc = await ctx.get<ExperimentConversationDoc>(EXPERIMENT_CONVERSATIONS, id);
  if (!doc) return;
  const { next, change } = follow(doc, event);
  ctx.put(EXPERIMENT_CONVERSATIONS, next);
  if (Object.keys(change).length === 0) return;
  await count(ctx, doc.experimentId, doc.arm, (c) => ({
    ...c,
    aiResolved: c.aiResolved + (change.resolved ? 1 : 0),
    handedOff: c.handedOff + (change.handedOff ? 1 : 0),
    ...(change.firstResponseMs !== undefined
      ? { firstResponse: record([...c.firstResponse], change.firstResponseMs), firstResponseTotalMs: c.firstResponseTotalMs + change.firstResponseMs }
      : {}),
  }));
}

type AgentEvent = RecordedEventOf<typeof schemas, 'AgentExperimentStarted' | 'AgentExperimentEnded'>;

async function applyAgent(event: AgentEvent, ctx: ProjectionContext): Promise<void> {
  if (event.type === 'AgentExperimentStarted') {
    const d = event.data;
    const doc: AgentExperimentDoc = {
      id: d.experimentId,
      agentId: agentIdOfStream(event.stream),
      companyId: event.metadata.companyId ?? '',
      seq: Number(event.revision),
      status: 'running',
      arms: d.arms.map(({ arm, version, share }) => ({ arm, version, share })),
      holdout: d.holdout,
      confidenceLevel: d.confidenceLevel,
      startedAt: d.at,
      startedBy: d.by,
      endedAt: null,
      endedBy: null,
      winner: null,
      reason: null,
      counts: { a: emptyCounts(), b: emptyCounts(), holdout: emptyCounts() },
    };
    ctx.put(AGENT_EXPERIMENTS, doc);
    return;
  }
  const doc = await ctx.get<AgentExperimentDoc>(AGENT_EXPERIMENTS, event.data.experimentId);
  if (doc) ctx.put(AGENT_EXPERIMENTS, { ...doc, status: 'ended', endedAt: event.data.at, endedBy: event.data.by, winner: event.data.winner, reason: event.data.reason });
}

/**
 * Every agent's experiments and, per arm, the outcomes of the conversations that joined it: counts and a
 * first-response histogram, so an event costs at most two keyed reads and two writes. A conversation counts
 * in the arm it joined until it joins another experiment; rates and their intervals are computed when read.
 */
export const agentExperimentsProjection = defineProjection(schemas, {
  name: 'agentExperiments',
  collections: [
    { name: AGENT_EXPERIMENTS, indexes: [['agentId', 'seq']] },
    { name: EXPERIMENT_CONVERSATIONS, indexes: ['experimentId'] },
  ],
  eventTypes: ['AgentExperimentStarted', 'AgentExperimentEnded', ...CONVERSATION_TYPES, 'CreditsConsumed'],
  async apply(event, ctx) {
    switch (event.type) {
      case 'AgentExperimentStarted':
      case 'AgentExperimentEnded':
        return applyAgent(event, ctx);
      case 'CreditsConsumed': {
        if (!event.stream.startsWith('credits-') || !event.data.conversationId) return;
        const doc = await ctx.get<ExperimentConversationDoc>(EXPERIMENT_CONVERSATIONS, event.data.conversationId);
        if (!doc) return;
        const amount = event.data.amountMicros;
        await count(ctx, doc.experimentId, doc.arm, (c) => ({ ...c, costMicros: c.costMicros + amount }), event.stream.slice('credits-'.length));
        return;
      }
      default:
        // Conversation event types count only on customer conversations (the playground has its own streams).
        if (!event.stream.startsWith('conversation-')) return;
        await applyConversation(event, ctx);
    }
  },
});
