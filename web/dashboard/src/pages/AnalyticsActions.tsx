import { getActionAnalytics } from '../api/actionCalls.js';
import { CardSection } from '../components/CardSection.js';
import { DataTable } from '../components/DataTable.js';
import { ErrorState, Skeleton } from '../components/ui.js';
import { formatDuration, formatNumber } from '../lib/format.js';
import { Link } from '../lib/router.js';
import { useAsync } from '../lib/useAsync.js';

const COLUMNS = ['Action', 'Calls', 'Succeeded', 'Failed', 'Rejected', 'Approved', 'Refused', 'Expired', 'Declined', 'Playground', 'p50', 'p95'].map((label, i) => (i === 0 ? label : { label, className: 'num' }));

/** Analytics → Actions: per action, its calls in the range and how they ended, approvals, refusals and durations. */
export function ActionsSection({ from, to }: { from: string; to: string }) {
  const report = useAsync((signal) => getActionAnalytics({ from, to }, { signal }), [from, to]);
  const data = report.data;
  return (
    <CardSection title="Actions">
      {report.error && !data ? (
        <ErrorState error={report.error} onRetry={report.reload} title="Could not load the action figures" />
      ) : !data ? (
        <Skeleton rows={3} label="Loading action figures…" />
      ) : data.byAction.length === 0 ? (
        <p className="muted" data-testid="analytics-actions-empty">
          No agent called an action in this range.
        </p>
      ) : (
        <>
          <p className="muted small">
            Each outcome counts on the day it happened; durations are of the calls made (within ±12 %). Every call is in the <Link to="/action-log">action log</Link>.
          </p>
          <DataTable testId="analytics-by-action" caption="Calls per action" columns={COLUMNS}>
            {data.byAction.map((a) => (
              <tr key={a.actionId} data-action-id={a.actionId}>
                <td className="wrap">
                  <code className="code-inline">{a.actionName}</code>
                </td>
                {[a.calls, a.succeeded, a.failed, a.rejected, a.approved, a.refused, a.expired, a.declined, a.playground ?? 0].map((n, i) => (
                  <td key={i} className="num">
                    {formatNumber(n)}
                  </td>
                ))}
                <td className="num">{formatDuration(a.durationP50Ms)}</td>
                <td className="num">{formatDuration(a.durationP95Ms)}</td>
              </tr>
            ))}
          </DataTable>
        </>
      )}
    </CardSection>
  );
}
