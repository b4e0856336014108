import { companyEvents, type PipelineStage } from '../../domain/company/events.js';
import type { Doc } from '../../ports/readStore.js';
import { defineProjection } from '../projection.js';

export interface PipelineDoc extends Doc {
  pipelineId: string;
  stages: PipelineStage[];
}

export const PIPELINES = 'pipelines';

/** One pipeline per company, keyed by the company id. */
export const pipelinesProjection = defineProjection(companyEvents, {
  name: 'pipelines',
  collections: [{ name: PIPELINES, indexes: [] }],
  eventTypes: ['PipelineCreated'],
  async apply(event, ctx) {
    const companyId = event.stream.slice('company-'.length);
    ctx.put(PIPELINES, { id: companyId, pipelineId: event.data.pipelineId, stages: [...event.data.stages].sort((a, b) => a.position - b.position) } satisfies PipelineDoc);
  },
});
