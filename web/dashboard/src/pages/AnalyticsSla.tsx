import { getSlaReport } from '../api/triage.js';
import { CardSection } from '../components/CardSection.js';
import { DataTable } from '../components/DataTable.js';
import { ErrorState, Skeleton } from '../components/ui.js';
import { formatNumber } from '../lib/format.js';
import { useAsync } from '../lib/useAsync.js';

const ROWS = [
  { kind: 'firstResponse', label: 'First response' },
  { kind: 'nextResponse', label: 'Next response' },
  { kind: 'resolution', label: 'Resolution' },
] as const;
const COLUMNS = ['Target', { label: 'Met', className: 'num' }, { label: 'Breached', className: 'num' }, { label: 'Breach rate', className: 'num' }];

/** Analytics → SLA: the targets met and breached in the range (each counted on the day its clock stopped). */
export function SlaSection({ from, to }: { from: string; to: string }) {
  const report = useAsync((signal) => getSlaReport({ from, to }, { signal }), [from, to]);
  const data = report.data;
  return (
    <CardSection title="SLA">
      {report.error && !data ? (
        <ErrorState error={report.error} onRetry={report.reload} title="Could not load the SLA figures" />
      ) : !data ? (
        <Skeleton rows={3} label="Loading SLA figures…" />
      ) : (
        <>
          <p className="muted small">Targets of the SLA policy per priority, counted in business hours; a target counts on the day a teammate answered or the conversation was resolved.</p>
          <DataTable testId="analytics-sla" caption="SLA targets met and breached" columns={COLUMNS}>
            {ROWS.map(({ kind, label }) => {
              const { met, breached } = data.totals[kind];
              const total = met + breached;
              return (
                <tr key={kind} data-sla-kind={kind}>
                  <td>{label}</td>
                  <td className="num">{formatNumber(met)}</td>
                  <td className="num" data-testid={`sla-breached-${kind}`}>
                    {formatNumber(breached)}
                  </td>
                  <td className="num">{total === 0 ? '—' : `${Math.round((breached / total) * 100)} %`}</td>
                </tr>
              );
            })}
          </DataTable>
        </>
      )}
    </CardSection>
  );
}
