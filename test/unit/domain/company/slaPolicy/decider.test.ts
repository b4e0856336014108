import { describe, it } from 'vitest';
import { slaPolicyDecider } from '../../../../../src/domain/company/slaPolicy/decider.js';
import type { SlaPolicy } from '../../../../../src/domain/company/slaPolicy/events.js';
import { specFor } from '../../../../support/gwt.js';

const spec = specFor(slaPolicyDecider);
const T = '2026-01-01T00:00:00.000Z';
const none = { firstResponseMinutes: null, nextResponseMinutes: null, resolutionMinutes: null };
const policy = (urgentFirst: number | null): SlaPolicy => ({
  enabled: true,
  targets: { urgent: { firstResponseMinutes: urgentFirst, nextResponseMinutes: 30, resolutionMinutes: 240 }, high: none, normal: none, low: none },
});

describe('SLA policy', () => {
  it('setting targets records them', () => {
    spec.given([]).when({ type: 'SetSlaPolicy', policy: policy(15), by: 'user:ann', now: T }).then([{ type: 'SlaPolicySet', data: { ...policy(15), by: 'user:ann', at: T } }]);
  });
  it('the same policy again records nothing; a changed target is recorded', () => {
    const set = { type: 'SlaPolicySet' as const, data: { ...policy(15), by: 'user:ann', at: T } };
    spec.given([set]).when({ type: 'SetSlaPolicy', policy: policy(15), by: 'user:bob', now: T }).then([]);
    spec.given([set]).when({ type: 'SetSlaPolicy', policy: policy(10), by: 'user:bob', now: T }).then([{ type: 'SlaPolicySet', data: { ...policy(10), by: 'user:bob', at: T } }]);
  });
  it('turning it off keeps the targets but records the change', () => {
    const set = { type: 'SlaPolicySet' as const, data: { ...policy(15), by: 'user:ann', at: T } };
    spec.given([set]).when({ type: 'SetSlaPolicy', policy: { ...policy(15), enabled: false }, by: 'user:ann', now: T }).then([{ type: 'SlaPolicySet', data: { ...policy(15), enabled: false, by: 'user:ann', at: T } }]);
  });
});
