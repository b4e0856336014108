import type { AnswerFacts, AnswerProvenanceView } from '../components/AnswerSources.js';
import type { Message } from '../api/types.js';

/** An AI reply's facts for <AnswerSources>, or null for a message that is not one (or from an older server). */
export function answerFactsOfMessage(message: Message): AnswerFacts | null {
  if (message.author !== 'agent' || typeof message.model !== 'string') return null;
  return {
    model: message.model,
    inputTokens: message.inputTokens ?? 0,
    outputTokens: message.outputTokens ?? 0,
    provenance: message.provenance ?? null,
    agentVersion: message.agentVersion ?? null,
    experimentArm: message.experiment?.arm ?? null,
  };
}

/** The same facts from a stored AgentReplied event's data (the audit timeline). */
export function answerFactsOfEvent(event: { type: string; data: unknown }): AnswerFacts | null {
  if (event.type !== 'AgentReplied' || event.data === null || typeof event.data !== 'object') return null;
  const d = event.data as { model?: unknown; inputTokens?: unknown; outputTokens?: unknown; provenance?: unknown; handoff?: unknown; agentVersion?: unknown; experiment?: { arm?: unknown } };
  return {
    model: typeof d.model === 'string' ? d.model : 'unknown model',
    inputTokens: Number(d.inputTokens) || 0,
    outputTokens: Number(d.outputTokens) || 0,
    provenance: d.provenance && typeof d.provenance === 'object' ? (d.provenance as AnswerProvenanceView) : null,
    ...(typeof d.handoff === 'boolean' ? { handoff: d.handoff } : {}),
    agentVersion: typeof d.agentVersion === 'number' ? d.agentVersion : null,
    experimentArm: d.experiment?.arm === 'a' || d.experiment?.arm === 'b' || d.experiment?.arm === 'holdout' ? d.experiment.arm : null,
  };
}
