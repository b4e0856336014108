import type { FindQuery, Page, ReadStore } from '../../ports/readStore.js';
import { AGENTS, type AgentDoc } from './agentsProjection.js';

/** The company's agents, oldest first. */
export async function listAgents(readStore: ReadStore, companyId: string, page: Pick<FindQuery, 'limit' | 'cursor'>): Promise<Page<AgentDoc>> {
  return readStore.find<AgentDoc>(AGENTS, {
    where: { companyId },
    orderBy: [{ field: 'createdAt', direction: 'asc' }],
    limit: page.limit,
    cursor: page.cursor ?? null,
  });
}

/** The agent when it is the company's (and not deleted), from the read model; null otherwise. */
export async function findCompanyAgent(readStore: ReadStore, companyId: string, agentId: string): Promise<AgentDoc | null> {
  const agent = await readStore.get<AgentDoc>(AGENTS, agentId);
  return agent && agent.companyId === companyId ? agent : null;
}

/** The current name of each agent (null once deleted): one read per distinct id. */
export async function agentNames(readStore: ReadStore, agentIds: Iterable<string>): Promise<Map<string, string | null>> {
  const names = new Map<string, string | null>();
  for (const agentId of new Set(agentIds)) {
    const agent = await readStore.get<AgentDoc>(AGENTS, agentId);
    names.set(agentId, agent?.name ?? null);
  }
  return names;
}
