import { businessHoursEvents, type BusinessHours } from '../../domain/company/businessHours/events.js';
import { companyIdOfSlaPolicyStream } from '../../domain/company/slaPolicy/decider.js';
import { slaPolicyEvents, type SlaPolicy } from '../../domain/company/slaPolicy/events.js';
import { companyTimezoneEvents } from '../../domain/company/timezone/events.js';
import { DEFAULT_TIMEZONE } from '../../domain/company/timezone/state.js';
import { conversationIdOfStream } from '../../domain/conversations/decider.js';
import { conversationEvents } from '../../domain/conversations/events.js';
import { evolveSlaClock, initialSlaClock, outcomeBreached, runningDue, type SlaClock, type SlaKind } from '../../domain/conversations/slaClock.js';
import { localDate } from '../../domain/localDay.js';
import type { Doc } from '../../ports/readStore.js';
import { defineProjection, type ProjectionContext } from '../projection.js';

/**
 * SLA clocks and breaches (domain/conversations/slaClock.ts). Per event it reads and writes one conversation's
 * clock, its company's settings and at most one day of counts: constant cost, whatever the conversation's
 * length or the store's size. Due times are counted with the policy, business hours and timezone in force when
 * the conversation's event was applied (events in store order), so a rebuild gives the same documents.
 */
export const SLA_COMPANIES = 'slaCompanies';
export const SLA_CONVERSATIONS = 'slaConversations';
export const SLA_DAYS = 'slaDays';

export interface SlaCompanyDoc extends Doc {
  timezone: string;
  hours: BusinessHours | null;
  policy: SlaPolicy | null;
  /** Bumped by every change of the three: a running clock's due time is counted again after one. */
  version?: number;
}

export interface SlaConversationDoc extends Doc {
  companyId: string;
  clock: SlaClock;
  /** The running response clock (first or next) and when it is due; null: none runs, or its target is not set. */
  response: { kind: SlaKind; dueAt: string } | null;
  /** The running resolution clock's due time; null: none runs, or no target. */
  resolution: { dueAt: string } | null;
  /**
   * What the due times above were counted for (the clocks' starts, the priority, the settings' version): they are
   * counted again only when it changes, so the business-hours walk runs when a clock starts, not on every event.
   */
  dueFor?: string;
}

export type SlaCounts = Record<SlaKind, { met: number; breached: number }>;
/** One company's targets met and breached on one local day (the day the clock stopped). */
export interface SlaDayDoc extends Doc, SlaCounts {
  companyId: string;
  date: string;
}

export const slaDayId = (companyId: string, date: string) => `${companyId}:${date}`;
export const emptySlaCounts = (): SlaCounts => ({ firstResponse: { met: 0, breached: 0 }, nextResponse: { met: 0, breached: 0 }, resolution: { met: 0, breached: 0 } });

const schemas = { ...conversationEvents, ...slaPolicyEvents, ...businessHoursEvents, ...companyTimezoneEvents };
const CONVERSATION_TYPES = [
  'ConversationStarted',
  'MessageReceived',
  'OperatorMessageRecorded',
  'OperatorMessageSent',
  'AgentReplied',
  'MessagesUnanswered',
  'ActionApprovalExpired',
  'AiSessionOpened',
  'AiSessionPaused',
  'AiSessionResumed',
  'AiSessionClosed',
  'ConversationReopened',
  'DialogTransferred',
  'HumanRequested',
  'ConversationPrioritized',
] as const;

async function companyOf(ctx: ProjectionContext, companyId: string): Promise<SlaCompanyDoc> {
  return (await ctx.get<SlaCompanyDoc>(SLA_COMPANIES, companyId)) ?? { id: companyId, timezone: DEFAULT_TIMEZONE, hours: null, policy: null };
}

/** The company's settings after a change (its version bumped). */
async function changed(ctx: ProjectionContext, companyId: string, change: Partial<Pick<SlaCompanyDoc, 'timezone' | 'hours' | 'policy'>>): Promise<void> {
  const company = await companyOf(ctx, companyId);
  ctx.put(SLA_COMPANIES, { ...company, ...change, version: (company.version ?? 0) + 1 } satisfies SlaCompanyDoc);
}

const dueKey = (clock: SlaClock, company: SlaCompanyDoc) => [clock.priority, clock.responseKind, clock.responseSince, clock.resolutionSince, company.version ?? 0].join('|');

const COMPANY_PREFIX = 'company-';

export const slaProjection = defineProjection(schemas, {
  name: 'sla',
  collections: [
    { name: SLA_COMPANIES, indexes: [] },
    { name: SLA_CONVERSATIONS, indexes: ['companyId'] },
    { name: SLA_DAYS, indexes: [['companyId', 'date']] },
  ],
  eventTypes: [...CONVERSATION_TYPES, 'SlaPolicySet', 'BusinessHoursSet', 'CompanyTimezoneSet'],
  async apply(event, ctx) {
    switch (event.type) {
      case 'SlaPolicySet': {
        const { by: _by, at: _at, ...policy } = event.data;
        await changed(ctx, companyIdOfSlaPolicyStream(event.stream), { policy });
        return;
      }
      case 'BusinessHoursSet': {
        if (!event.stream.startsWith(COMPANY_PREFIX)) return;
        const { by: _by, at: _at, ...hours } = event.data;
        await changed(ctx, event.stream.slice(COMPANY_PREFIX.length), { hours });
        return;
      }
      case 'CompanyTimezoneSet': {
        if (!event.stream.startsWith(COMPANY_PREFIX)) return;
        await changed(ctx, event.stream.slice(COMPANY_PREFIX.length), { timezone: event.data.timezone });
        return;
      }
      case 'ConversationStarted': {
        const id = conversationIdOfStream(event.stream);
        ctx.put(SLA_CONVERSATIONS, { id, companyId: event.data.companyId, clock: initialSlaClock, response: null, resolution: null } satisfies SlaConversationDoc);
        return;
      }
      default: {
        const id = conversationIdOfStream(event.stream);
        const doc = await ctx.get<SlaConversationDoc>(SLA_CONVERSATIONS, id);
        if (!doc) return;
        const { clock, outcomes } = evolveSlaClock(doc.clock, event);
        const company = await companyOf(ctx, doc.companyId);
        const settings = { policy: company.policy, hours: company.hours, timezone: company.timezone };
        if (outcomes.length > 0) {
          const date = localDate(event.data.at, company.timezone);
          const dayId = slaDayId(doc.companyId, date);
          const day = (await ctx.get<SlaDayDoc>(SLA_DAYS, dayId)) ?? { id: dayId, companyId: doc.companyId, date, ...emptySlaCounts() };
          let changed = false;
          const next: SlaDayDoc = { ...day };
          for (const outcome of outcomes) {
            // The due time counted for the clock that stopped (the document's, before this event), else counted now.
            const cached = outcome.kind === 'resolution' ? doc.resolution?.dueAt : doc.response?.kind === outcome.kind ? doc.response.dueAt : undefined;
            const breached = cached && doc.dueFor === dueKey(doc.clock, company) ? Date.parse(outcome.at) > Date.parse(cached) : outcomeBreached(settings, doc.clock.priority, outcome);
            if (breached === null) continue;
            const counts = next[outcome.kind];
            next[outcome.kind] = breached ? { ...counts, breached: counts.breached + 1 } : { ...counts, met: counts.met + 1 };
            changed = true;
          }
          if (changed) ctx.put(SLA_DAYS, next);
        }
        const key = dueKey(clock, company);
        const due = doc.dueFor === key ? { response: doc.response, resolution: doc.resolution } : runningDue(settings, clock);
        ctx.put(SLA_CONVERSATIONS, { ...doc, clock, ...due, dueFor: key } satisfies SlaConversationDoc);
      }
    }
  },
});
