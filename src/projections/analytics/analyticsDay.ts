import { emptyHistogram, type Histogram } from './histogram.js';
import { handoffReason, type HandoffReason } from '../../domain/conversations/state.js';
import type { Doc } from '../../ports/readStore.js';

/** Collections of the analytics projection. */
export const ANALYTICS_DAYS = 'analytics_days';
/** Per-conversation state the projection needs to count in O(1) per event (never read by queries). */
export const ANALYTICS_CONVERSATIONS = 'analytics_conversations';
/** Per company: the timezone in force (from CompanyTimezoneSet). */
export const ANALYTICS_COMPANIES = 'analytics_companies';
/** Per integration: its company and the agent answering on it (for per-agent series). */
export const ANALYTICS_INTEGRATIONS = 'analytics_integrations';

/** What a day document counts for one scope. */
export const COUNTERS = [
  /** ConversationStarted: a new customer on an integration. */
  'conversationsStarted',
  /** Conversations with at least one customer message that day. */
  'conversationsActive',
  'customerMessages',
  /** AgentReplied, including handoff replies. */
  'aiReplies',
  /** Messages written by people (dashboard or platform operators). */
  'operatorMessages',
  /** AI sessions closed that the AI handled alone (see docs/api/analytics.md: no operator message, no handoff, no pause). */
  'aiResolved',
  /** Conversations that entered the "Needs human" queue (reasons in handoffReasons). */
  'handedOff',
  /** AI replies whose delivery failed for good (MessageDeliveryFailed). */
  'deliveryFailed',
  /** Customer messages the AI could not answer (MessagesUnanswered: no agent, LLM failure…), per event. */
  'unanswered',
  /** Credits consumed, micro-dollars. */
  'creditsSpentMicros',
] as const;
export type Counter = (typeof COUNTERS)[number];

export type HandoffReasonCounts = Record<HandoffReason, number>;
export const HANDOFF_REASONS = handoffReason.options;

/** One scope's numbers for one local day. `scope` is `company`, `integration:<id>` or `agent:<uuid>`. */
export interface AnalyticsDayDoc extends Doc, Record<Counter, number> {
  companyId: string;
  scope: string;
  /** `YYYY-MM`, the query key (ranges are read month by month: at most 13 bounded queries for 366 days). */
  month: string;
  date: string;
  handoffReasons: HandoffReasonCounts;
  /** First-response times (histogram.ts), AI replies and human replies. */
  aiFirstResponse: Histogram;
  humanFirstResponse: Histogram;
  /** The part of each whose wait began outside business hours (absent on days counted before they existed). */
  aiFirstResponseOutsideHours?: Histogram;
  humanFirstResponseOutsideHours?: Histogram;
}

export const companyScope = 'company';
export const integrationScope = (integrationId: number) => `integration:${integrationId}`;
export const agentScope = (agentId: string) => `agent:${agentId}`;
export const dayDocId = (companyId: string, scope: string, date: string) => `${companyId}|${scope}|${date}`;

export const emptyReasons = (): HandoffReasonCounts => Object.fromEntries(HANDOFF_REASONS.map((r) => [r, 0])) as HandoffReasonCounts;

export function emptyDay(companyId: string, scope: string, date: string): AnalyticsDayDoc {
  return {
    id: dayDocId(companyId, scope, date),
    companyId,
    scope,
    month: date.slice(0, 7),
    date,
    ...(Object.fromEntries(COUNTERS.map((c) => [c, 0])) as Record<Counter, number>),
    handoffReasons: emptyReasons(),
    aiFirstResponse: emptyHistogram(),
    humanFirstResponse: emptyHistogram(),
    aiFirstResponseOutsideHours: emptyHistogram(),
    humanFirstResponseOutsideHours: emptyHistogram(),
  };
}
