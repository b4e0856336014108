// The note for whoever takes over a handoff: what the customer wants, what the AI tried, the sources it used
// and why it handed off. Shown on the conversation and, one line of it, in the "Needs human" queue.
import type { HandoffSummary as Summary } from '../api/types.js';
import './handoffSummary.css';

export function HandoffSummaryCard({ summary }: { summary: Summary }) {
  return (
    <section className="handoff-summary" data-testid="handoff-summary" aria-label="Handoff summary">
      <h3 className="section-title">
        Handoff summary <span className="muted small">{summary.writtenBy === 'llm' ? '· written by your AI model' : '· taken from the messages'}</span>
      </h3>
      <dl>
        <div>
          <dt>Wants</dt>
          <dd data-testid="handoff-summary-wants">{summary.wants}</dd>
        </div>
        <div>
          <dt>AI tried</dt>
          <dd>{summary.tried}</dd>
        </div>
        <div>
          <dt>Sources</dt>
          <dd>{summary.sources.length ? summary.sources.map((s) => s.title).join(', ') : 'None'}</dd>
        </div>
        <div>
          <dt>Why</dt>
          <dd data-testid="handoff-summary-why">{summary.why}</dd>
        </div>
      </dl>
    </section>
  );
}

/** One line for a queue row: what the customer wants. */
export function HandoffSummaryLine({ summary }: { summary: Summary }) {
  return (
    <span className="row-sub handoff-summary-line" data-testid="handoff-summary-line" title={`${summary.wants}\n${summary.why}`}>
      Wants: {summary.wants}
    </span>
  );
}
