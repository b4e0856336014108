import { loadBusinessHours } from '../commands/settings/queries.js';
import { DEFAULT_AGENT_AFTER_HOURS_MESSAGE } from '../domain/agents/events.js';
import { afterHoursSentence, nextOpening } from '../domain/company/businessHours/schedule.js';
import type { AgentProfile, ReplyWorkerDeps } from './replyDeps.js';

export interface AfterHours {
  /** When people are back (ISO). */
  backAt: string;
  /** The agent's after-hours sentence with the return filled in. */
  sentence: string;
}

/**
 * Whether a handoff made now waits for the morning: null in business hours (or without any), else when
 * people are back and what the customer is told. The company stream's state is cached, so a handoff costs
 * no stream read beyond the events appended since.
 */
export async function afterHours(deps: ReplyWorkerDeps, companyId: string, agent: Pick<AgentProfile, 'afterHoursMessage'> | null): Promise<AfterHours | null> {
  const { hours, timezone } = await loadBusinessHours(deps.eventStore, companyId);
  const now = deps.clock.now();
  const back = nextOpening(hours, timezone, now);
  // Open now, or a schedule that never opens again (no return to promise).
  if (back === null || back.getTime() === now.getTime()) return null;
  return { backAt: back.toISOString(), sentence: afterHoursSentence(agent?.afterHoursMessage ?? DEFAULT_AGENT_AFTER_HOURS_MESSAGE, back, timezone) };
}

/** What an AgentReplied text may hold (events.ts). */
const MAX_REPLY_LENGTH = 65_536;

/** The handoff reply with the after-hours sentence after it. */
export const withAfterHours = (text: string, after: AfterHours) => `${text.trimEnd()}\n\n${after.sentence}`.slice(0, MAX_REPLY_LENGTH);
