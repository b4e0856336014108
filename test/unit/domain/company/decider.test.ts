import { describe, expect, it } from 'vitest';
import { companyDecider, DEFAULT_PIPELINE_STAGES, type CompanyCommand } from '../../../../src/domain/company/decider.js';
import type { CompanyEvent } from '../../../../src/domain/company/events.js';
import { specFor } from '../../../support/gwt.js';

const U1 = '11111111-1111-4111-8111-111111111111';
const U2 = '22222222-2222-4222-8222-222222222222';
const C1 = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const T0 = '2026-01-01T00:00:00.000Z';

describe('registration', () => {
  it('creates the company with the 6-stage default pipeline', () => {
    const stageIds = Array.from({ length: 6 }, (_, i) => `00000000-0000-4000-8000-00000000000${i}`);
    const events = companyDecider.decide(
      { type: 'RegisterCompany', companyId: C1, companyKey: 7, name: 'Acme', ownerUserId: U1, now: T0, pipelineId: U2, stageIds },
      companyDecider.initialState,
    );
    expect(events.map((e) => e.type)).toEqual(['CompanyRegistered', 'PipelineCreated']);
    const pipeline = events[1]!.data as { stages: { id: string; name: string; position: number }[] };
    expect(pipeline.stages).toHaveLength(6);
    expect(pipeline.stages.map((s) => s.name)).toEqual([...DEFAULT_PIPELINE_STAGES]);
    expect(pipeline.stages.map((s) => s.position)).toEqual([0, 1, 2, 3, 4, 5]);
  });
});

describe('company decider', () => {
  const company = specFor(companyDecider);
  const stageIds = Array.from({ length: 6 }, (_, i) => `00000000-0000-4000-8000-00000000000${i}`);
  const register = (ids = stageIds): CompanyCommand => ({ type: 'RegisterCompany', companyId: C1, companyKey: 7, name: 'Acme', ownerUserId: U1, now: T0, pipelineId: U2, stageIds: ids });
  const registered: CompanyEvent = { type: 'CompanyRegistered', data: { companyId: C1, companyKey: 7, name: 'Acme', ownerUserId: U1, createdAt: T0 } };
  const pipeline: CompanyEvent = {
    type: 'PipelineCreated',
    data: { pipelineId: U2, stages: DEFAULT_PIPELINE_STAGES.map((name, position) => ({ id: stageIds[position]!, name, position })) },
  };

  it('registers the company and its pipeline in one decision', () => {
    const state = company.given([]).when(register()).then([registered, pipeline]);
    expect(state).toMatchObject({ exists: true, companyId: C1, companyKey: 7, ownerUserId: U1, pipeline: { id: U2 } });
  });
  it('refuses to register a company twice', () => {
    company.given([registered, pipeline]).when(register()).thenThrows('CONFLICT');
  });
  it('refuses a pipeline without one id per default stage', () => {
    company.given([]).when(register(stageIds.slice(1))).thenThrows('VALIDATION_ERROR');
  });
});
