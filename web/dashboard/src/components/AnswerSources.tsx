import type { AnswerProvenance } from '../api/serverTypes.js';
import { formatMicros, formatNumber } from '../lib/format.js';

/** What produced an AI answer (the API's `provenance`, next to `model`, `inputTokens` and `outputTokens`). */
export type AnswerProvenanceView = AnswerProvenance;

export interface AnswerFacts {
  model: string;
  inputTokens: number;
  outputTokens: number;
  provenance: AnswerProvenanceView | null;
  /** Whether the answer handed off, when the view knows. */
  handoff?: boolean;
  /** The agent version that wrote it, where recorded. */
  agentVersion?: number | null;
  /** The experiment arm it was written in, where it was. */
  experimentArm?: 'a' | 'b' | 'holdout' | null;
}

/**
 * "Sources" under an AI answer: the knowledge-base passages it drew from, then the model, tokens, latency
 * and cost. Used by the conversation view, the audit timeline, the playground and replay comparisons, so an
 * answer is explained the same way everywhere. Collapsed by default: the answer itself comes first.
 */
export function AnswerSources({ facts, open = false }: { facts: AnswerFacts; open?: boolean }) {
  const p = facts.provenance;
  const sources = p?.sources ?? [];
  return (
    <details className="answer-sources" open={open} data-testid="answer-sources">
      <summary>
        Sources <span className="muted">({sources.length === 0 ? 'none' : formatNumber(sources.length)})</span>
      </summary>
      {sources.length === 0 ? (
        <p className="muted">No knowledge-base passage was used{p === null ? ' (recorded before sources were kept)' : ''}.</p>
      ) : (
        <ol className="answer-sources-list">
          {sources.map((s) => (
            <li key={`${s.documentId}:${s.chunkIndex}`}>
              <a href={`#/knowledge-base?document=${encodeURIComponent(s.documentId)}`}>{s.title || 'Untitled document'}</a>
              <span className="muted"> · passage {s.chunkIndex + 1} · score {s.score.toFixed(2)}</span>
            </li>
          ))}
        </ol>
      )}
      <p className="answer-facts muted">
        {facts.agentVersion ? <span data-testid="answer-agent-version">Agent version {facts.agentVersion} · </span> : null}
        {facts.experimentArm ? <span data-testid="answer-experiment-arm">{facts.experimentArm === 'holdout' ? 'Experiment holdout' : `Experiment arm ${facts.experimentArm.toUpperCase()}`} · </span> : null}
        {facts.model} · {formatNumber(facts.inputTokens)} in / {formatNumber(facts.outputTokens)} out tokens
        {p?.usageEstimated ? ' (estimated)' : ''}
        {p ? ` · ${formatNumber(p.latencyMs)} ms · ${formatMicros(p.costMicros)}` : ''}
      </p>
      {p?.evidence !== undefined && (
        <p className="answer-evidence muted" data-testid="answer-evidence">
          {evidenceLine(p.evidence, p, facts.handoff)}
        </p>
      )}
      {p?.grounded && (
        <p className="answer-evidence muted" data-testid="answer-grounded">
          {groundedLine(sources.length, facts.handoff)}
        </p>
      )}
    </details>
  );
}

/**
 * Why the built-in agent answered or handed off: its evidence — the probability, learned from labelled
 * questions, that the passage answers rightly — against what the setting needed.
 */
function evidenceLine(evidence: number, p: AnswerProvenanceView, handoff: boolean | undefined): string {
  const needed = p.evidenceNeeded;
  const setting = p.answerThreshold ? ` · setting ${p.answerThreshold}${needed !== undefined ? ` (answers from ${score(needed)})` : ''}` : '';
  const handedOff = handoff ?? (needed !== undefined ? evidence < needed : undefined);
  const outcome = handedOff === undefined ? '' : handedOff ? ' · handed off: no confident answer' : ' · answered';
  return `Evidence ${score(evidence)} (probability of a right answer)${setting}${outcome}`;
}

/** A 0..1 score to three decimals at most (0.725, not 0.72), so it compares truly with the bar. */
const score = (value: number) => String(Number(value.toFixed(3)));

/** Why a model asked to cite the knowledge base answered: the passages it cited, or none. */
function groundedLine(cited: number, handoff: boolean | undefined): string {
  if (handoff) return 'Grounded: the model cited no passage it was given, so it handed off (no confident answer)';
  if (cited > 0) return `Grounded: answered from the ${cited === 1 ? 'passage' : `${formatNumber(cited)} passages`} the model cited`;
  if (handoff === false) return 'Grounded: no passage cited (a general answer: the agent allows them)';
  return 'Grounded: no passage cited (handed off, unless the agent allows general answers)';
}
