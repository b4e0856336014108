import type { Decider } from '../../decider.js';
import { PRIORITIES } from '../../conversations/triage.js';
import type { SlaPolicy, SlaPolicyEvent } from './events.js';
import { evolveSlaPolicy, initialSlaPolicyState, type SlaPolicyState } from './state.js';

export type SlaPolicyCommand = { type: 'SetSlaPolicy'; policy: SlaPolicy; by: string; now: string };

const PREFIX = 'sla-policy-';
export const slaPolicyStream = (companyId: string) => `${PREFIX}${companyId}`;
export const companyIdOfSlaPolicyStream = (stream: string) => stream.slice(PREFIX.length);

const sameTargets = (a: SlaPolicy, b: SlaPolicy) =>
  PRIORITIES.every((p) => a.targets[p].firstResponseMinutes === b.targets[p].firstResponseMinutes && a.targets[p].nextResponseMinutes === b.targets[p].nextResponseMinutes && a.targets[p].resolutionMinutes === b.targets[p].resolutionMinutes);

export const slaPolicyDecider: Decider<SlaPolicyCommand, SlaPolicyEvent, SlaPolicyState> = {
  initialState: initialSlaPolicyState,
  evolve: evolveSlaPolicy,
  decide(command, state) {
    // The same policy again records nothing: saving an unchanged form is harmless.
    if (command.policy.enabled === state.enabled && sameTargets(command.policy, state)) return [];
    const { enabled, targets } = command.policy;
    return [{ type: 'SlaPolicySet', data: { enabled, targets, by: command.by, at: command.now } }];
  },
};
