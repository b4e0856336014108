import { describe, expect, it } from 'vitest';
import { autoAssignmentDecider, autoAssignmentStream, companyIdOfAutoAssignmentStream } from '../../../../../src/domain/company/autoAssignment/decider.js';
import type { AutoAssignmentEvent } from '../../../../../src/domain/company/autoAssignment/events.js';
import { specFor } from '../../../../support/gwt.js';

const CO = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const T0 = '2026-01-01T09:00:00.000Z';
const T1 = '2026-01-01T12:00:00.000Z';
const spec = specFor(autoAssignmentDecider);
const configure = (enabled: boolean, capacity: number, now = T1) => ({ type: 'ConfigureAutoAssignment', enabled, capacity, by: 'user:42', now }) as const;
const on2: AutoAssignmentEvent = { type: 'AutoAssignmentConfigured', data: { enabled: true, capacity: 2, by: 'user:42', at: T0 } };

describe('automatic assignment settings', () => {
  it('given nothing configured, it is off with a capacity of 3', () => {
    expect(spec.given([]).state).toEqual({ enabled: false, capacity: 3 });
  });
  it('when turned on with a capacity, AutoAssignmentConfigured records both and who', () => {
    expect(spec.given([]).when(configure(true, 2, T0)).then([on2])).toEqual({ enabled: true, capacity: 2 });
    spec.given([on2]).when(configure(false, 2)).then([{ type: 'AutoAssignmentConfigured', data: { enabled: false, capacity: 2, by: 'user:42', at: T1 } }]);
  });
  it('the settings in force again record nothing', () => {
    spec.given([on2]).when(configure(true, 2)).then([]);
    spec.given([]).when(configure(false, 3)).then([]);
  });
  it('a capacity outside 1..100 or not whole is refused', () => {
    for (const capacity of [0, -1, 101, 1.5]) spec.given([]).when(configure(true, capacity)).thenThrows('VALIDATION_ERROR');
  });
  it('one stream per company', () => {
    expect(companyIdOfAutoAssignmentStream(autoAssignmentStream(CO))).toBe(CO);
  });
});
