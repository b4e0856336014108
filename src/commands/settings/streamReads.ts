import { redactionDecider, redactionStream } from '../../domain/company/redaction/decider.js';
import type { RedactionState } from '../../domain/company/redaction/state.js';
import { autoAssignmentDecider, autoAssignmentStream } from '../../domain/company/autoAssignment/decider.js';
import type { AutoAssignmentState } from '../../domain/company/autoAssignment/state.js';
import { companyStream } from '../../domain/company/decider.js';
import { timezoneDecider } from '../../domain/company/timezone/decider.js';
import { businessHoursDecider } from '../../domain/company/businessHours/decider.js';
import type { BusinessHoursState } from '../../domain/company/businessHours/state.js';
import { slaPolicyDecider, slaPolicyStream } from '../../domain/company/slaPolicy/decider.js';
import type { SlaPolicyState } from '../../domain/company/slaPolicy/state.js';
import type { EventStore } from '../../ports/eventStore.js';
import { loadState } from '../handleCommand.js';

/** The company's timezone for analytics days, from its stream (strongly consistent: a change shows at once). */
export async function loadCompanyTimezone(eventStore: EventStore, companyId: string): Promise<string> {
  const { state } = await loadState(eventStore, companyStream(companyId), timezoneDecider);
  return state.timezone;
}

/** The company's automatic assignment settings, from their stream (a change shows at once). */
export async function loadAutoAssignment(eventStore: EventStore, companyId: string): Promise<AutoAssignmentState> {
  const { state } = await loadState(eventStore, autoAssignmentStream(companyId), autoAssignmentDecider);
  return state;
}

/**
 * The company's business hours and the timezone they are read in, from its stream (strongly consistent, and
 * cached like every stream state: the reply worker asks once per handoff without reading the stream again).
 */
export async function loadBusinessHours(eventStore: EventStore, companyId: string): Promise<BusinessHoursState> {
  const { state } = await loadState(eventStore, companyStream(companyId), businessHoursDecider);
  return state;
}

/** The company's SLA policy, from its stream (a change shows at once). */
export async function loadSlaPolicy(eventStore: EventStore, companyId: string): Promise<SlaPolicyState> {
  const { state } = await loadState(eventStore, slaPolicyStream(companyId), slaPolicyDecider);
  return state;
}

/** The company's redaction before the model, from its stream (strongly consistent: the next reply follows a change). */
export async function loadRedaction(eventStore: EventStore, companyId: string): Promise<RedactionState> {
  const { state } = await loadState(eventStore, redactionStream(companyId), redactionDecider);
  return state;
}
