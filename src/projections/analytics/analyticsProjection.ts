import { localDate } from '../../domain/localDay.js';
import { record } from './histogram.js';
import { companyTimezoneEvents } from '../../domain/company/timezone/events.js';
import { businessHoursEvents, type BusinessHours } from '../../domain/company/businessHours/events.js';
import { isOpenAt } from '../../domain/company/businessHours/schedule.js';
import { DEFAULT_TIMEZONE } from '../../domain/company/timezone/state.js';
import { conversationEvents } from '../../domain/conversations/events.js';
import { evolveHandoff, noHandoff, type HandoffReason, type HandoffTrack } from '../../domain/conversations/state.js';
import { creditEvents } from '../../domain/credits/events.js';
import { integrationEvents } from '../../domain/integrations/events.js';
import type { Doc } from '../../ports/readStore.js';
import { defineProjection, type ProjectionContext, type RecordedEventOf } from '../projection.js';
import {
  agentScope,
  ANALYTICS_COMPANIES,
  ANALYTICS_CONVERSATIONS,
  ANALYTICS_DAYS,
  ANALYTICS_INTEGRATIONS,
  companyScope,
  dayDocId,
  emptyDay,
  integrationScope,
  type AnalyticsDayDoc,
  type Counter,
} from './analyticsDay.js';

export interface AnalyticsCompanyDoc extends Doc {
  timezone: string;
  /** The business hours in force (absent: none set), to tell first responses inside hours from those outside. */
  hours?: BusinessHours;
}

export interface AnalyticsIntegrationDoc extends Doc {
  companyId: string;
  agentId: string | null;
}

/** What the projection remembers about one conversation: constant size, whatever the conversation's length. */
export interface AnalyticsConversationDoc extends Doc {
  companyId: string;
  integrationId: number;
  /** The agent that last answered here (credits name a conversation, not an agent). */
  agentId: string | null;
  /** The "Needs human" fold (evolveHandoff, domain/conversations/state.ts), also giving since when a customer waits for an answer. */
  track: HandoffTrack;
  /** The AI already answered the current wait (with a handoff reply): the next answer is a human's. */
  aiAnsweredWait: boolean;
  /** The local day of the newest customer message (conversationsActive counts a conversation once a day). */
  lastActiveDate: string | null;
  /** The current AI session: did the AI reply, did a human step in (operator message, handoff, pause)? */
  sessionAiReplied: boolean;
  sessionHumanInvolved: boolean;
  /** AI replies not yet delivered (a delivery failure counts only for these); at most PENDING_CAP, oldest dropped. */
  pendingAiReplies: string[];
}

const PENDING_CAP = 20;
const CONVERSATION_PREFIX = 'conversation-';

const schemas = { ...conversationEvents, ...creditEvents, ...integrationEvents, ...companyTimezoneEvents, ...businessHoursEvents };
type Schemas = typeof schemas;

const CONVERSATION_TYPES = [
  'ConversationStarted',
  'MessageReceived',
  'OperatorMessageRecorded',
  'OperatorMessageSent',
  'AgentReplied',
  'MessageDelivered',
  'MessageDeliveryFailed',
  'MessagesUnanswered',
  'AiSessionOpened',
  'AiSessionPaused',
  'AiSessionResumed',
  'AiSessionClosed',
  'ConversationReopened',
  'DialogTransferred',
  'HumanRequested',
] as const;
type ConversationType = (typeof CONVERSATION_TYPES)[number];
type AnalyticsEvent = RecordedEventOf<Schemas, ConversationType | 'CreditsConsumed' | 'IntegrationCreated' | 'IntegrationUpdated' | 'CompanyTimezoneSet' | 'BusinessHoursSet'>;

/** One change to a day document. */
type Change =
  | { counter: Counter; by: number }
  | { reason: HandoffReason }
  | { firstResponse: 'aiFirstResponse' | 'humanFirstResponse'; ms: number; outsideHours: boolean };

async function companyOf(ctx: ProjectionContext, companyId: string): Promise<AnalyticsCompanyDoc> {
  return (await ctx.get<AnalyticsCompanyDoc>(ANALYTICS_COMPANIES, companyId)) ?? { id: companyId, timezone: DEFAULT_TIMEZONE };
}

async function timezoneOf(ctx: ProjectionContext, companyId: string): Promise<string> {
  return (await companyOf(ctx, companyId)).timezone;
}

/** Applies the changes to the day document of each scope (3 reads and 3 writes at most). */
async function bump(ctx: ProjectionContext, companyId: string, scopes: (string | null)[], date: string, changes: Change[]): Promise<void> {
  if (changes.length === 0) return;
  for (const scope of scopes) {
    if (scope === null) continue;
    const doc = (await ctx.get<AnalyticsDayDoc>(ANALYTICS_DAYS, dayDocId(companyId, scope, date))) ?? emptyDay(companyId, scope, date);
    const next: AnalyticsDayDoc = { ...doc, handoffReasons: { ...doc.handoffReasons } };
    for (const c of changes) {
      if ('counter' in c) next[c.counter] += c.by;
      else if ('reason' in c) next.handoffReasons[c.reason] = (next.handoffReasons[c.reason] ?? 0) + 1;
      else {
        next[c.firstResponse] = record(next[c.firstResponse], c.ms);
        if (c.outsideHours) next[`${c.firstResponse}OutsideHours`] = record(next[`${c.firstResponse}OutsideHours`], c.ms);
      }
    }
    ctx.put(ANALYTICS_DAYS, next);
  }
}

const elapsedMs = (from: string, to: string) => Date.parse(to) - Date.parse(from);

async function integrationAgent(ctx: ProjectionContext, integrationId: number): Promise<string | null> {
  return (await ctx.get<AnalyticsIntegrationDoc>(ANALYTICS_INTEGRATIONS, String(integrationId)))?.agentId ?? null;
}

type ConversationEvent = Extract<AnalyticsEvent, { type: ConversationType }>;

async function applyConversationEvent(event: ConversationEvent, ctx: ProjectionContext): Promise<void> {
  const id = event.stream.slice(CONVERSATION_PREFIX.length);
  if (event.type === 'ConversationStarted') {
    const d = event.data;
    const agentId = await integrationAgent(ctx, d.integrationId);
    ctx.put(ANALYTICS_CONVERSATIONS, {
      id,
      companyId: d.companyId,
      integrationId: d.integrationId,
      agentId,
      track: noHandoff,
      aiAnsweredWait: false,
      lastActiveDate: null,
      sessionAiReplied: false,
      sessionHumanInvolved: false,
      pendingAiReplies: [],
    } satisfies AnalyticsConversationDoc);
    const date = localDate(d.at, await timezoneOf(ctx, d.companyId));
    await bump(ctx, d.companyId, [companyScope, integrationScope(d.integrationId), agentId && agentScope(agentId)], date, [{ counter: 'conversationsStarted', by: 1 }]);
    return;
  }
  const state = await ctx.get<AnalyticsConversationDoc>(ANALYTICS_CONVERSATIONS, id);
  if (!state) return;
  const company = await companyOf(ctx, state.companyId);
  const date = localDate(event.data.at, company.timezone);
  // A wait that began outside business hours is answered later by design: counted apart.
  const outsideHours = (since: string) => !isOpenAt(company.hours ?? null, company.timezone, new Date(since));
  const changes: Change[] = [];
  const next: AnalyticsConversationDoc = { ...state };
  const waitingSince = state.track.waitingSince;

  // Handed off: exactly when the conversation enters the "Needs human" queue, with the queue's own reason.
  next.track = evolveHandoff(state.track, event);
  if (!state.track.handoff && next.track.handoff) {
    changes.push({ counter: 'handedOff', by: 1 }, { reason: next.track.handoff.reason });
    next.sessionHumanInvolved = true;
  }

  switch (event.type) {
    case 'MessageReceived':
      changes.push({ counter: 'customerMessages', by: 1 });
      if (state.lastActiveDate !== date) {
        changes.push({ counter: 'conversationsActive', by: 1 });
        next.lastActiveDate = date;
      }
      if (!waitingSince) next.aiAnsweredWait = false;
      break;
    case 'AgentReplied':
      // The handoff message sent because the model failed is no AI answer: that failure counts as unanswered.
      if (event.data.aiFailed) break;
      changes.push({ counter: 'aiReplies', by: 1 });
      if (waitingSince && !state.aiAnsweredWait) changes.push({ firstResponse: 'aiFirstResponse', ms: elapsedMs(waitingSince, event.data.at), outsideHours: outsideHours(waitingSince) });
      // A handoff reply answers the customer but leaves them waiting, now for a person.
      next.aiAnsweredWait = event.data.handoff;
      next.sessionAiReplied = true;
      if (event.data.agentId) next.agentId = event.data.agentId;
      next.pendingAiReplies = [...state.pendingAiReplies, event.data.messageId].slice(-PENDING_CAP);
      break;
    case 'OperatorMessageSent':
    case 'OperatorMessageRecorded':
      changes.push({ counter: 'operatorMessages', by: 1 });
      if (waitingSince) changes.push({ firstResponse: 'humanFirstResponse', ms: elapsedMs(waitingSince, event.data.at), outsideHours: outsideHours(waitingSince) });
      next.aiAnsweredWait = false;
      next.sessionHumanInvolved = true;
      break;
    case 'MessageDelivered':
      next.pendingAiReplies = state.pendingAiReplies.filter((m) => m !== event.data.messageId);
      break;
    case 'MessageDeliveryFailed':
      if (state.pendingAiReplies.includes(event.data.messageId)) {
        changes.push({ counter: 'deliveryFailed', by: 1 });
        next.pendingAiReplies = state.pendingAiReplies.filter((m) => m !== event.data.messageId);
      }
      break;
    case 'MessagesUnanswered':
      changes.push({ counter: 'unanswered', by: 1 });
      break;
    case 'AiSessionPaused':
      // A takeover (or any stop of the AI) means the AI did not finish this session alone.
      next.sessionHumanInvolved = true;
      break;
    case 'AiSessionClosed':
      if (state.sessionAiReplied && !next.sessionHumanInvolved) changes.push({ counter: 'aiResolved', by: 1 });
      next.sessionAiReplied = false;
      next.sessionHumanInvolved = false;
      next.aiAnsweredWait = false;
      break;
    case 'AiSessionOpened':
    case 'ConversationReopened':
      next.sessionAiReplied = false;
      next.sessionHumanInvolved = next.track.handoff !== null;
      break;
    default:
      break;
  }
  ctx.put(ANALYTICS_CONVERSATIONS, next);
  if (changes.length === 0) return;
  const agentId = event.type === 'AgentReplied' && event.data.agentId ? event.data.agentId : await integrationAgent(ctx, state.integrationId);
  await bump(ctx, state.companyId, [companyScope, integrationScope(state.integrationId), agentId && agentScope(agentId)], date, changes);
}

/**
 * Per company, per integration and per agent, per local day: conversations, messages, AI replies, AI-resolved,
 * handoffs by reason, first-response histograms, failed replies and credits spent. Each event costs a fixed
 * number of keyed reads and writes. Only `conversation-` streams count (the playground keeps its own streams),
 * and a day is the company's local day in the timezone in force when the event was projected.
 */
export const analyticsProjection = defineProjection(schemas, {
  name: 'analytics',
  collections: [
    { name: ANALYTICS_DAYS, indexes: [['companyId', 'scope', 'month']] },
    { name: ANALYTICS_CONVERSATIONS, indexes: ['companyId'] },
    { name: ANALYTICS_COMPANIES, indexes: [] },
    { name: ANALYTICS_INTEGRATIONS, indexes: ['companyId'] },
  ],
  eventTypes: [...CONVERSATION_TYPES, 'CreditsConsumed', 'IntegrationCreated', 'IntegrationUpdated', 'CompanyTimezoneSet', 'BusinessHoursSet'],
  async apply(event, ctx) {
    switch (event.type) {
      case 'CompanyTimezoneSet':
        if (!event.stream.startsWith('company-')) return;
        ctx.put(ANALYTICS_COMPANIES, { ...(await companyOf(ctx, event.stream.slice('company-'.length))), timezone: event.data.timezone } satisfies AnalyticsCompanyDoc);
        return;
      case 'BusinessHoursSet': {
        if (!event.stream.startsWith('company-')) return;
        const { by: _by, at: _at, ...hours } = event.data;
        ctx.put(ANALYTICS_COMPANIES, { ...(await companyOf(ctx, event.stream.slice('company-'.length))), hours } satisfies AnalyticsCompanyDoc);
        return;
      }
      case 'IntegrationCreated':
        ctx.put(ANALYTICS_INTEGRATIONS, { id: String(event.data.integrationId), companyId: event.data.companyId, agentId: event.data.agentId } satisfies AnalyticsIntegrationDoc);
        return;
      case 'IntegrationUpdated': {
        if (event.data.changes.agentId === undefined) return;
        const doc = await ctx.get<AnalyticsIntegrationDoc>(ANALYTICS_INTEGRATIONS, event.stream.slice('integration-'.length));
        if (doc) ctx.put(ANALYTICS_INTEGRATIONS, { ...doc, agentId: event.data.changes.agentId });
        return;
      }
      case 'CreditsConsumed': {
        if (!event.stream.startsWith('credits-')) return;
        const companyId = event.stream.slice('credits-'.length);
        const date = localDate(event.data.at, await timezoneOf(ctx, companyId));
        // Every charge counts for the company; a charge naming one of its conversations also for that integration and agent.
        const conversation = await ctx.get<AnalyticsConversationDoc>(ANALYTICS_CONVERSATIONS, event.data.conversationId);
        const own = conversation && conversation.companyId === companyId ? conversation : null;
        await bump(ctx, companyId, [companyScope, own && integrationScope(own.integrationId), own?.agentId ? agentScope(own.agentId) : null], date, [
          { counter: 'creditsSpentMicros', by: event.data.amountMicros },
        ]);
        return;
      }
      default:
        // Conversation event types count only on conversation streams: other kinds of conversation (the
        // playground) live in their own stream category and are not customer conversations.
        if (!event.stream.startsWith(CONVERSATION_PREFIX)) return;
        await applyConversationEvent(event, ctx);
    }
  },
});
