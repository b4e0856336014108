import { getCsatReport, listCsatResponses, type CsatFigures } from '../api/csat.js';
import { listAgents, listTeammates } from '../api/endpoints.js';
import { CardSection } from '../components/CardSection.js';
import { DataTable } from '../components/DataTable.js';
import { ErrorState, Skeleton, Time } from '../components/ui.js';
import { formatNumber, formatPercent } from '../lib/format.js';
import { useAsync } from '../lib/useAsync.js';

const average = (f: CsatFigures) => (f.average === null ? '—' : `${f.average.toFixed(2)} / 5`);

/**
 * Analytics → Customer satisfaction: the survey answers of the range, overall, per agent (the one that answered
 * last), per version of it (which release is rated better) and per teammate (who owned the conversation), and the newest comments.
 */
export function CsatSection({ from, to }: { from: string; to: string }) {
  const report = useAsync((signal) => getCsatReport({ from, to }, { signal }), [from, to]);
  const names = useAsync(async (signal) => {
    const [agents, team, recent] = await Promise.all([listAgents({ signal }), listTeammates(null, { signal }), listCsatResponses(10, { signal })]);
    return { agents: new Map(agents.map((a) => [a.id, a.name])), team: new Map(team.items.map((m) => [m.id, m.name ?? m.email])), recent: recent.responses };
  }, [from, to]);
  const data = report.data;
  return (
    <CardSection title="Customer satisfaction (CSAT)">
      {report.error && !data ? (
        <ErrorState error={report.error} onRetry={report.reload} title="Could not load the survey results" />
      ) : !data ? (
        <Skeleton rows={3} label="Loading survey results…" />
      ) : data.totals.requested === 0 ? (
        <p className="muted" data-testid="csat-empty">
          No survey was sent in this range. Switch it on per integration (Integrations → Satisfaction survey).
        </p>
      ) : (
        <>
          <dl className="kv" data-testid="csat-totals">
            <dt>Average rating</dt>
            <dd data-testid="csat-average">{average(data.totals)}</dd>
            <dt>Answers</dt>
            <dd data-testid="csat-responses">
              {formatNumber(data.totals.responses)} of {formatNumber(data.totals.requested)} surveys ({formatPercent(data.totals.responses, data.totals.requested)})
            </dd>
            <dt>Ratings 1–5</dt>
            <dd>{data.totals.scores.map((n, i) => `${i + 1}★ ${formatNumber(n)}`).join(' · ')}</dd>
          </dl>
          <DataTable testId="csat-by-agent" columns={['Agent', { label: 'Average', className: 'num' }, { label: 'Answers', className: 'num' }]}>
            {data.byAgent.map((a) => (
              <tr key={a.agentId} data-agent-id={a.agentId}>
                <td className="wrap">{names.data?.agents.get(a.agentId) ?? 'Deleted agent'}</td>
                <td className="num">{average(a)}</td>
                <td className="num">{formatNumber(a.responses)}</td>
              </tr>
            ))}
          </DataTable>
          {data.byAgentVersion.length > 0 && (
            <DataTable testId="csat-by-agent-version" columns={['Agent version', { label: 'Average', className: 'num' }, { label: 'Answers', className: 'num' }]}>
              {data.byAgentVersion.map((v) => (
                <tr key={`${v.agentId}:${v.version}`} data-agent-id={v.agentId} data-version={v.version}>
                  <td className="wrap">
                    {names.data?.agents.get(v.agentId) ?? 'Deleted agent'} · v{v.version}
                  </td>
                  <td className="num">{average(v)}</td>
                  <td className="num">{formatNumber(v.responses)}</td>
                </tr>
              ))}
            </DataTable>
          )}
          {data.byTeammate.length > 0 && (
            <DataTable testId="csat-by-teammate" columns={['Teammate', { label: 'Average', className: 'num' }, { label: 'Answers', className: 'num' }]}>
              {data.byTeammate.map((m) => (
                <tr key={m.userId} data-user-id={m.userId}>
                  <td className="wrap">{names.data?.team.get(m.userId) ?? 'Former teammate'}</td>
                  <td className="num">{average(m)}</td>
                  <td className="num">{formatNumber(m.responses)}</td>
                </tr>
              ))}
            </DataTable>
          )}
          {names.data && names.data.recent.length > 0 && (
            <ul className="plain-list" data-testid="csat-recent" aria-label="Newest answers">
              {names.data.recent.map((r) => (
                <li key={r.id}>
                  <strong>{r.rating}/5</strong> {r.comment ? `“${r.comment}”` : <span className="muted">no comment</span>} · <span className="muted small">{r.via === 'webchat' ? 'web chat' : 'platform'} · <Time iso={r.at} /></span>
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </CardSection>
  );
}
