import type { CompanyEvent, PipelineStage } from './events.js';

export type CompanyState =
  | { exists: false }
  | { exists: true; companyId: string; companyKey: number; name: string; ownerUserId: string; createdAt: string; pipeline: { id: string; stages: PipelineStage[] } | null };

export const initialCompanyState: CompanyState = { exists: false };

export function evolveCompany(state: CompanyState, event: CompanyEvent): CompanyState {
  switch (event.type) {
    case 'CompanyRegistered':
      return { exists: true, ...event.data, pipeline: null };
    case 'PipelineCreated':
      return state.exists ? { ...state, pipeline: { id: event.data.pipelineId, stages: event.data.stages } } : state;
    default:
      // The company stream also carries other deciders' events (LLM configuration).
      return state;
  }
}
