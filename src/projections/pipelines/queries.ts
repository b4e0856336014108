import type { ReadStore } from '../../ports/readStore.js';
import { PIPELINES, type PipelineDoc } from './pipelinesProjection.js';

/** The company's sales pipeline (one per company), or null before the read model has it. */
export async function companyPipeline(readStore: ReadStore, companyId: string): Promise<PipelineDoc | null> {
  return readStore.get<PipelineDoc>(PIPELINES, companyId);
}
