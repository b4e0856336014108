import { agentIdOfStream } from '../../domain/agents/decider.js';
import { agentEvents } from '../../domain/agents/events.js';
import type { AnswerThreshold } from '../../domain/answers/evidence.js';
import type { Doc } from '../../ports/readStore.js';
import { defineProjection } from '../projection.js';

/** The dashboard's agent list (per company, oldest first). Deleted agents are removed. */
export interface AgentDoc extends Doc {
  companyId: string;
  name: string;
  systemPrompt: string;
  model: string | null;
  temperature: number;
  useKnowledgeBase: boolean;
  active: boolean;
  handoffMessage: string;
  /** Absent for agents created before the setting existed (read as DEFAULT_ANSWER_THRESHOLD). */
  answerThreshold?: AnswerThreshold;
  /** Absent for agents created before the setting existed (read as false). */
  generalAnswers?: boolean;
  /** Absent for agents created before the setting existed (read as DEFAULT_AGENT_AFTER_HOURS_MESSAGE). */
  afterHoursMessage?: string;
  /** Absent: never set (stays with people, like null). */
  handBackAfterMinutes?: number | null;
  /** Absent: none (the agent only talks). */
  actionIds?: string[];
  createdAt: string;
  updatedAt: string;
}

export const AGENTS = 'agents';

export const agentsProjection = defineProjection(agentEvents, {
  name: 'agents',
  collections: [{ name: AGENTS, indexes: ['companyId', ['companyId', 'createdAt']] }],
  eventTypes: ['AgentCreated', 'AgentUpdated', 'AgentDeleted', 'AgentVersionSaved', 'AgentVersionPublished'],
  async apply(event, ctx) {
    const id = agentIdOfStream(event.stream);
    if (event.type === 'AgentCreated') {
      const d = event.data;
      ctx.put(AGENTS, {
        id,
        companyId: d.companyId,
        name: d.name,
        systemPrompt: d.systemPrompt,
        model: d.model,
        temperature: d.temperature,
        useKnowledgeBase: d.useKnowledgeBase,
        active: d.active,
        handoffMessage: d.handoffMessage,
        ...(d.answerThreshold !== undefined ? { answerThreshold: d.answerThreshold } : {}),
        ...(d.generalAnswers !== undefined ? { generalAnswers: d.generalAnswers } : {}),
        ...(d.afterHoursMessage !== undefined ? { afterHoursMessage: d.afterHoursMessage } : {}),
        ...(d.handBackAfterMinutes != null ? { handBackAfterMinutes: d.handBackAfterMinutes } : {}),
        ...(d.actionIds !== undefined ? { actionIds: d.actionIds } : {}),
        createdAt: d.at,
        updatedAt: d.at,
      } satisfies AgentDoc);
      return;
    }
    const doc = await ctx.get<AgentDoc>(AGENTS, id);
    if (!doc) return;
    switch (event.type) {
      case 'AgentUpdated':
        ctx.put(AGENTS, { ...doc, ...event.data.changes, updatedAt: event.data.at });
        return;
      case 'AgentVersionSaved':
        ctx.put(AGENTS, { ...doc, updatedAt: event.data.at });
        return;
      case 'AgentVersionPublished': {
        // The list shows what customers are answered with: the published configuration, whole.
        const { answerThreshold: _t, ...rest } = doc;
        ctx.put(AGENTS, { ...rest, ...event.data.config, updatedAt: event.data.at });
        return;
      }
      case 'AgentDeleted':
        ctx.delete(AGENTS, id);
    }
  },
});
