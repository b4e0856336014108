import { localDate } from '../../domain/localDay.js';
import { companyTimezoneEvents } from '../../domain/company/timezone/events.js';
import { DEFAULT_TIMEZONE } from '../../domain/company/timezone/state.js';
import { conversationEvents, type CsatVia } from '../../domain/conversations/events.js';
import type { Doc } from '../../ports/readStore.js';
import { defineProjection, type ProjectionContext } from '../projection.js';

/** Per company, subject and local day: surveys sent and answered, the ratings' sum and how many of each. */
export const CSAT_DAYS = 'csat_days';
/** One document per answered survey, newest first per company (the ratings and comments list). */
export const CSAT_RESPONSES = 'csat_responses';
/** What the projection needs to count in O(1): each conversation's company and integration, each company's timezone. */
export const CSAT_CONVERSATIONS = 'csat_conversations';
export const CSAT_COMPANIES = 'csat_companies';

export interface CsatDayDoc extends Doc {
  companyId: string;
  /**
   * `company`, `integration:<id>`, `agent:<uuid>` (the agent that answered last), `agentVersion:<uuid>:<version>`
   * (the version of it that wrote that answer, when known) or `teammate:<uuid>` (who owned the conversation).
   */
  subject: string;
  month: string;
  date: string;
  requested: number;
  responses: number;
  /** Sum of the ratings (their average is total / responses). */
  total: number;
  /** How many of each rating, 1 to 5. */
  scores: [number, number, number, number, number];
}

export interface CsatResponseDoc extends Doc {
  companyId: string;
  conversationId: string;
  integrationId: number;
  rating: number;
  comment: string | null;
  via: CsatVia;
  agentId: string | null;
  /** The version of the agent that wrote the last answer; null when unknown, absent on answers projected before versions. */
  agentVersion?: number | null;
  teammateId: string | null;
  at: string;
}

interface CsatConversationDoc extends Doc {
  companyId: string;
  integrationId: number;
}

const CONVERSATION_PREFIX = 'conversation-';
const dayId = (companyId: string, subject: string, date: string) => `${companyId}|${subject}|${date}`;
const subjectsOf = (c: CsatConversationDoc, agentId: string | null, agentVersion: number | undefined, teammateId: string | null) => [
  'company',
  `integration:${c.integrationId}`,
  ...(agentId ? [`agent:${agentId}`] : []),
  ...(agentId && agentVersion !== undefined ? [`agentVersion:${agentId}:${agentVersion}`] : []),
  ...(teammateId ? [`teammate:${teammateId}`] : []),
];

async function bump(ctx: ProjectionContext, c: CsatConversationDoc, subjects: string[], at: string, change: (d: CsatDayDoc) => void) {
  const timezone = (await ctx.get<Doc & { timezone: string }>(CSAT_COMPANIES, c.companyId))?.timezone ?? DEFAULT_TIMEZONE;
  const date = localDate(at, timezone);
  for (const subject of subjects) {
    const id = dayId(c.companyId, subject, date);
    const doc = (await ctx.get<CsatDayDoc>(CSAT_DAYS, id)) ?? { id, companyId: c.companyId, subject, month: date.slice(0, 7), date, requested: 0, responses: 0, total: 0, scores: [0, 0, 0, 0, 0] };
    const next: CsatDayDoc = { ...doc, scores: [...doc.scores] };
    change(next);
    ctx.put(CSAT_DAYS, next);
  }
}

/**
 * CSAT results for analytics: per day and subject (company, integration, agent, agent version, teammate), and the answers
 * themselves. Each event costs a fixed number of keyed reads and writes; days are the company's local days in
 * the timezone in force when the event was projected (as in the analytics projection).
 */
export const csatProjection = defineProjection(
  { ...conversationEvents, ...companyTimezoneEvents },
  {
    name: 'csat',
    collections: [
      { name: CSAT_DAYS, indexes: [['companyId', 'month']] },
      { name: CSAT_RESPONSES, indexes: [['companyId', 'at']] },
      { name: CSAT_CONVERSATIONS, indexes: [] },
      { name: CSAT_COMPANIES, indexes: [] },
    ],
    eventTypes: ['ConversationStarted', 'CsatRequested', 'CsatSubmitted', 'CompanyTimezoneSet'],
    async apply(event, ctx) {
      if (event.type === 'CompanyTimezoneSet') {
        if (event.stream.startsWith('company-')) ctx.put(CSAT_COMPANIES, { id: event.stream.slice('company-'.length), timezone: event.data.timezone });
        return;
      }
      // Conversation events count only on customer conversations (the playground has its own streams).
      if (!event.stream.startsWith(CONVERSATION_PREFIX)) return;
      const conversationId = event.stream.slice(CONVERSATION_PREFIX.length);
      if (event.type === 'ConversationStarted') {
        ctx.put(CSAT_CONVERSATIONS, { id: conversationId, companyId: event.data.companyId, integrationId: event.data.integrationId } satisfies CsatConversationDoc);
        return;
      }
      const c = await ctx.get<CsatConversationDoc>(CSAT_CONVERSATIONS, conversationId);
      if (!c) return;
      const d = event.data;
      const subjects = subjectsOf(c, d.agentId, d.agentVersion, d.teammateId);
      if (event.type === 'CsatRequested') {
        await bump(ctx, c, subjects, d.at, (doc) => (doc.requested += 1));
        return;
      }
      const { rating, comment, via, at } = event.data;
      await bump(ctx, c, subjects, at, (doc) => {
        doc.responses += 1;
        doc.total += rating;
        doc.scores[rating - 1] = (doc.scores[rating - 1] ?? 0) + 1;
      });
      ctx.put(CSAT_RESPONSES, {
        id: event.data.surveyId,
        companyId: c.companyId,
        conversationId,
        integrationId: c.integrationId,
        rating,
        comment,
        via,
        agentId: d.agentId,
        agentVersion: d.agentVersion ?? null,
        teammateId: d.teammateId,
        at,
      } satisfies CsatResponseDoc);
    },
  },
);
