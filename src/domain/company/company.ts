import { z } from 'zod';
import type { Decider } from '../decider.js';
import { DomainError } from '../errors.js';

export const DEFAULT_PIPELINE_STAGES = ['New lead', 'Contacted', 'Qualified', 'Proposal sent', 'Won', 'Lost'] as const;

const stage = z.object({ id: z.uuid(), name: z.string().min(1).max(100), position: z.number().int().min(0) });

export const companyEvents = {
  CompanyRegistered: z.object({
    companyId: z.uuid(),
    companyKey: z.number().int().positive(),
    name: z.string().min(1).max(200),
    ownerUserId: z.uuid(),
    createdAt: z.iso.datetime(),
  }),
  PipelineCreated: z.object({ pipelineId: z.uuid(), stages: z.array(stage).min(1) }),
};
type Events = typeof companyEvents;
export type CompanyEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]> } }[keyof Events];
export type PipelineStage = z.infer<typeof stage>;

export type CompanyState =
  | { exists: false }
  | { exists: true; companyId: string; companyKey: number; name: string; ownerUserId: string; createdAt: string; pipeline: { id: string; stages: PipelineStage[] } | null };

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
  initialState: { exists: false },
  evolve(state, event) {
    switch (event.type) {
      case 'CompanyRegistered':
        return { exists: true, ...event.data, pipeline: null };
      case 'PipelineCreated':
        return state.exists ? { ...state, pipeline: { id: event.data.pipelineId, stages: event.data.stages } } : state;
      default:
        // The company stream also carries other deciders' events (LLM configuration).
        return state;
    }
  },
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
