import { formatMicros, formatNumber } from '../lib/format.js';

/** What produced an AI answer (the API's `provenance`, next to `model`, `inputTokens` and `outputTokens`). */
export interface AnswerProvenanceView {
  sources: Array<{ documentId: string; title: string; chunkIndex: number; score: number }>;
  latencyMs: number;
  costMicros: number;
  usageEstimated: boolean;
  /** The evidence score the built-in agent decided on (0..1) and the agent's setting; absent for other providers. */
  evidence?: number;
  answerThreshold?: 'strict' | 'balanced' | 'lenient';
}

export interface AnswerFacts {
  model: string;
  inputTokens: number;
  outputTokens: number;
  provenance: AnswerProvenanceView | null;
  /** The agent version that wrote it, where recorded. */
  agentVersion?: number | null;
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
        {facts.model} · {formatNumber(facts.inputTokens)} in / {formatNumber(facts.outputTokens)} out tokens
        {p?.usageEstimated ? ' (estimated)' : ''}
        {p ? ` · ${formatNumber(p.latencyMs)} ms · ${formatMicros(p.costMicros)}` : ''}
      </p>
      {p?.evidence !== undefined && (
        <p className="answer-evidence muted" data-testid="answer-evidence">
          Evidence {p.evidence.toFixed(2)}
          {p.answerThreshold ? ` · setting ${p.answerThreshold}` : ''}
        </p>
      )}
    </details>
  );
}
