import type { CompanyEvent, PipelineStage } from '../../domain/company/company.js';
import type { Doc } from '../../ports/readStore.js';
import type { Projection } from '../projection.js';

export interface PipelineDoc extends Doc {
  pipelineId: string;
  stages: PipelineStage[];
}

export const PIPELINES = 'pipelines';

/** One pipeline per company, keyed by the company id. */
export const pipelinesProjection: Projection = {
  name: 'pipelines',
  collections: [{ name: PIPELINES, indexes: [] }],
  eventTypes: ['PipelineCreated'],
  async apply(event, ctx) {
    const e = event as unknown as CompanyEvent;
    if (e.type !== 'PipelineCreated') return;
    const companyId = event.stream.slice('company-'.length);
    ctx.put(PIPELINES, { id: companyId, pipelineId: e.data.pipelineId, stages: [...e.data.stages].sort((a, b) => a.position - b.position) } satisfies PipelineDoc);
  },
};
