import type { Decider } from '../decider.js';
import { DomainError } from '../errors.js';
import type { CompanyEvent } from './events.js';
import { evolveCompany, initialCompanyState, type CompanyState } from './state.js';

export const DEFAULT_PIPELINE_STAGES = ['New lead', 'Contacted', 'Qualified', 'Proposal sent', 'Won', 'Lost'] as const;

export type CompanyCommand = {
  type: 'RegisterCompany';
  companyId: string;
  companyKey: number;
  name: string;
  ownerUserId: string;
  now: string;
  pipelineId: string;
  stageIds: string[];
};

export const companyDecider: Decider<CompanyCommand, CompanyEvent, CompanyState> = {
  initialState: initialCompanyState,
  evolve: evolveCompany,
  decide(command, state) {
    if (state.exists) throw new DomainError('CONFLICT', 'Company already registered');
    if (command.stageIds.length !== DEFAULT_PIPELINE_STAGES.length) {
      throw new DomainError('VALIDATION_ERROR', `A new pipeline needs ${DEFAULT_PIPELINE_STAGES.length} stage ids`);
    }
    return [
      {
        type: 'CompanyRegistered',
        data: {
          companyId: command.companyId,
          companyKey: command.companyKey,
          name: command.name,
          ownerUserId: command.ownerUserId,
          createdAt: command.now,
        },
      },
      {
        type: 'PipelineCreated',
        data: {
          pipelineId: command.pipelineId,
          stages: DEFAULT_PIPELINE_STAGES.map((name, position) => ({ id: command.stageIds[position]!, name, position })),
        },
      },
    ];
  },
};

export const companyStream = (companyId: string) => `company-${companyId}`;
