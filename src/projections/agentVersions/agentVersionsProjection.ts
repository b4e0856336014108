import { agentIdOfStream } from '../../domain/agents/decider.js';
import { agentEvents, type AgentConfig, type ReleaseChecksRecord } from '../../domain/agents/events.js';
import { configOf } from '../../domain/agents/state.js';
import type { Doc } from '../../ports/readStore.js';
import { defineProjection } from '../projection.js';

/** One immutable version of an agent's behaviour (id `<agentId>:<version>`). */
export interface AgentVersionDoc extends Doc {
  agentId: string;
  companyId: string;
  version: number;
  config: AgentConfig;
  /** The version it was edited from; null for version 1. */
  basedOn: number | null;
  /** The fields that differ from `basedOn` (empty for version 1). */
  changed: string[];
  createdAt: string;
  /** `user:<id>` of who saved it; null for version 1 and versions saved without a known actor. */
  createdBy: string | null;
}

/** One publish or rollback (id `<agentId>:<revision>`), newest first by `seq` (the agent stream's revision). */
export interface AgentPublicationDoc extends Doc {
  agentId: string;
  companyId: string;
  seq: number;
  version: number;
  previousVersion: number;
  rollback: boolean;
  reason: string | null;
  /** The release gate's record (absent: not gated). */
  checks?: ReleaseChecksRecord;
  by: string | null;
  at: string;
}

export const AGENT_VERSIONS = 'agentVersions';
export const AGENT_PUBLICATIONS = 'agentPublications';
export const agentVersionId = (agentId: string, version: number) => `${agentId}:${version}`;

/**
 * Every agent's versions and publications. Version 1 is the configuration AgentCreated set, amended by the
 * behaviour settings of AgentUpdated events stored before versions existed, so an older agent lists one
 * version: its current configuration. A new projection, so it is built from the whole history on first start.
 */
export const agentVersionsProjection = defineProjection(agentEvents, {
  name: 'agentVersions',
  collections: [
    { name: AGENT_VERSIONS, indexes: [['agentId', 'version']] },
    { name: AGENT_PUBLICATIONS, indexes: [['agentId', 'seq']] },
  ],
  eventTypes: ['AgentCreated', 'AgentUpdated', 'AgentVersionSaved', 'AgentVersionPublished'],
  async apply(event, ctx) {
    const agentId = agentIdOfStream(event.stream);
    if (event.type === 'AgentCreated') {
      const d = event.data;
      const doc: AgentVersionDoc = { id: agentVersionId(agentId, 1), agentId, companyId: d.companyId, version: 1, config: configOf(d) as AgentConfig, basedOn: null, changed: [], createdAt: d.at, createdBy: null };
      ctx.put(AGENT_VERSIONS, doc);
      return;
    }
    const first = await ctx.get<AgentVersionDoc>(AGENT_VERSIONS, agentVersionId(agentId, 1));
    if (!first) return;
    switch (event.type) {
      case 'AgentUpdated': {
        // Only events stored before versions carry behaviour settings; they amend version 1.
        const amended = configOf(event.data.changes);
        if (Object.keys(amended).length > 0) ctx.put(AGENT_VERSIONS, { ...first, config: { ...first.config, ...amended } });
        return;
      }
      case 'AgentVersionSaved': {
        const d = event.data;
        const doc: AgentVersionDoc = { id: agentVersionId(agentId, d.version), agentId, companyId: first.companyId, version: d.version, config: d.config, basedOn: d.basedOn, changed: d.changed, createdAt: d.at, createdBy: d.by };
        ctx.put(AGENT_VERSIONS, doc);
        return;
      }
      case 'AgentVersionPublished': {
        const { config: _c, ...d } = event.data;
        const seq = Number(event.revision);
        ctx.put(AGENT_PUBLICATIONS, { id: `${agentId}:${seq}`, agentId, companyId: first.companyId, seq, ...d } satisfies AgentPublicationDoc);
      }
    }
  },
});
