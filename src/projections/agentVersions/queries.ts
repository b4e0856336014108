import type { FindQuery, Page, ReadStore } from '../../ports/readStore.js';
import { AGENT_PUBLICATIONS, AGENT_VERSIONS, agentVersionId, type AgentPublicationDoc, type AgentVersionDoc } from './agentVersionsProjection.js';

type PageQuery = Pick<FindQuery, 'limit' | 'cursor'>;

/** An agent's versions, newest first. The caller has checked the agent is the company's. */
export async function listAgentVersions(readStore: ReadStore, agentId: string, page: PageQuery): Promise<Page<AgentVersionDoc>> {
  return readStore.find<AgentVersionDoc>(AGENT_VERSIONS, {
    where: { agentId },
    orderBy: [{ field: 'version', direction: 'desc' }],
    limit: page.limit,
    cursor: page.cursor ?? null,
  });
}

/** One version, when it is the company's. */
export async function findAgentVersion(readStore: ReadStore, companyId: string, agentId: string, version: number): Promise<AgentVersionDoc | null> {
  const doc = await readStore.get<AgentVersionDoc>(AGENT_VERSIONS, agentVersionId(agentId, version));
  return doc && doc.companyId === companyId ? doc : null;
}

/** Who published which version when (rollbacks with their reason), newest first. */
export async function listAgentPublications(readStore: ReadStore, agentId: string, page: PageQuery): Promise<Page<AgentPublicationDoc>> {
  return readStore.find<AgentPublicationDoc>(AGENT_PUBLICATIONS, {
    where: { agentId },
    orderBy: [{ field: 'seq', direction: 'desc' }],
    limit: page.limit,
    cursor: page.cursor ?? null,
  });
}
