import { describe, expect, it } from 'vitest';
import { companyIdOfRedactionStream, redactionDecider, redactionStream } from '../../../../../src/domain/company/redaction/decider.js';
import type { RedactionEvent } from '../../../../../src/domain/company/redaction/events.js';
import { redactsFor } from '../../../../../src/domain/company/redaction/state.js';
import { specFor } from '../../../../support/gwt.js';

const CO = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const AGENT = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const OTHER = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';
const T0 = '2026-01-01T09:00:00.000Z';
const T1 = '2026-01-01T12:00:00.000Z';
const spec = specFor(redactionDecider);
const configure = (enabled: boolean, agents: Record<string, boolean> = {}, now = T1) => ({ type: 'ConfigureRedaction', enabled, agents, by: 'user:42', now }) as const;
const on: RedactionEvent = { type: 'RedactionConfigured', data: { enabled: true, agents: {}, by: 'user:42', at: T0 } };

describe('redaction before the model: the setting', () => {
  it('given nothing configured, it is off for every agent', () => {
    const state = spec.given([]).state;
    expect(state).toEqual({ enabled: false, agents: {} });
    expect(redactsFor(state, AGENT)).toBe(false);
  });
  it('when turned on, RedactionConfigured records it and who; every agent redacts', () => {
    const state = spec.given([]).when(configure(true, {}, T0)).then([on]);
    expect(redactsFor(state, AGENT)).toBe(true);
    expect(redactsFor(state, null)).toBe(true);
  });
  it("an agent's own setting wins over the company's, either way", () => {
    const state = spec.given([]).when(configure(false, { [AGENT]: true })).then([{ type: 'RedactionConfigured', data: { enabled: false, agents: { [AGENT]: true }, by: 'user:42', at: T1 } }]);
    expect([redactsFor(state, AGENT), redactsFor(state, OTHER)]).toEqual([true, false]);
    const reversed = spec.given([on]).when(configure(true, { [AGENT]: false })).then([{ type: 'RedactionConfigured', data: { enabled: true, agents: { [AGENT]: false }, by: 'user:42', at: T1 } }]);
    expect([redactsFor(reversed, AGENT), redactsFor(reversed, OTHER)]).toEqual([false, true]);
  });
  it('the settings in force again record nothing', () => {
    spec.given([on]).when(configure(true)).then([]);
    spec.given([]).when(configure(false)).then([]);
  });
  it('more than 200 agent settings are refused', () => {
    const agents = Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`aaaaaaaa-aaaa-4aaa-8aaa-${String(i).padStart(12, '0')}`, true]));
    spec.given([]).when(configure(true, agents)).thenThrows('VALIDATION_ERROR');
  });
  it('one stream per company', () => {
    expect(companyIdOfRedactionStream(redactionStream(CO))).toBe(CO);
  });
});
