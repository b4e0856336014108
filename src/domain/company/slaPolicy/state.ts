import type { SlaPolicy, SlaPolicyEvent } from './events.js';

const none = { firstResponseMinutes: null, nextResponseMinutes: null, resolutionMinutes: null };

/** Off until a company sets targets. */
export const initialSlaPolicyState: SlaPolicy = { enabled: false, targets: { urgent: none, high: none, normal: none, low: none } };
export type SlaPolicyState = SlaPolicy;

export function evolveSlaPolicy(_state: SlaPolicyState, event: SlaPolicyEvent): SlaPolicyState {
  return { enabled: event.data.enabled, targets: event.data.targets };
}
