import { useEffect, useMemo, useState } from 'react';
import { MAX_ANALYTICS_DAYS, getAnalytics, listAgents, listIntegrations } from '../api/endpoints.js';
import type { AnalyticsReport, HandoffReason } from '../api/types.js';
import { CardSection } from '../components/CardSection.js';
import { TimeSeriesChart, type ChartSeries } from '../components/TimeSeriesChart.js';
import { DataTable } from '../components/DataTable.js';
import { Button, EmptyState, ErrorState, PageHeader, SelectField, Skeleton, TextField } from '../components/ui.js';
import { formatDay, formatDuration, formatMicros, formatNumber, formatPercent } from '../lib/format.js';
import { useAsync } from '../lib/useAsync.js';
import './analytics.css';
import { CsatSection } from './AnalyticsCsat.js';
import { ActionsSection } from './AnalyticsActions.js';
import { SlaSection } from './AnalyticsSla.js';

type Preset = '7' | '30' | '90' | 'custom';

const HANDOFF_REASON_LABELS: Record<HandoffReason, string> = {
  agent_handoff: 'The AI handed off (its handoff message)',
  no_confident_answer: 'No confident answer (too little evidence, or no passage cited)',
  ai_unanswered: 'The AI could not answer',
  customer_request: 'The customer asked for a person',
  dialog_transferred: 'The platform transferred the dialog',
  experiment_holdout: 'An experiment’s holdout (sent to people on purpose)',
};

/** Today in `timezone`, as YYYY-MM-DD (the API's days are the company's local days). */
function todayIn(timezone: string): string {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(new Date());
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')}`;
}
const shiftDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00.000Z`) + days * 86_400_000).toISOString().slice(0, 10);
const daysBetween = (from: string, to: string) => Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000) + 1;

const formatAxisDuration = (ms: number) => formatDuration(Math.round(ms));
/** Axis ticks in dollars, rounded to a cent above a cent ("$0.25"), else to a tenth of a cent. */
const formatAxisMicros = (micros: number) => formatMicros(Math.round(micros / (micros >= 10_000 ? 10_000 : 1_000)) * (micros >= 10_000 ? 10_000 : 1_000));

const COLORS = { a: '#4f46e5', b: '#0e9384', c: '#dc6803', d: '#b42318', e: '#667085' };

export function AnalyticsPage() {
  const [preset, setPreset] = useState<Preset>('30');
  const [timezone, setTimezone] = useState('UTC');
  const today = todayIn(timezone);
  const [customFrom, setCustomFrom] = useState(() => shiftDays(todayIn('UTC'), -29));
  const [customTo, setCustomTo] = useState(() => todayIn('UTC'));
  const [filter, setFilter] = useState('all');

  const range = preset === 'custom' ? { from: customFrom, to: customTo } : { from: shiftDays(today, -(Number(preset) - 1)), to: today };
  const rangeDays = daysBetween(range.from, range.to);
  const rangeError =
    !range.from || !range.to ? 'Pick both dates.' : rangeDays < 1 ? 'The start date is after the end date.' : rangeDays > MAX_ANALYTICS_DAYS ? `Pick at most ${MAX_ANALYTICS_DAYS} days.` : null;

  const scope = filter.startsWith('i:') ? { integrationId: Number(filter.slice(2)) } : filter.startsWith('a:') ? { agentId: filter.slice(2) } : {};
  const report = useAsync(
    (signal) => (rangeError ? Promise.resolve(undefined) : getAnalytics({ ...range, ...scope }, { signal })),
    [range.from, range.to, filter, rangeError],
  );
  const filters = useAsync(async (signal) => {
    const [integrations, agents] = await Promise.all([listIntegrations({ signal }), listAgents({ signal })]);
    return { integrations, agents };
  }, []);

  // The company's timezone comes with the report; presets end "today" there.
  useEffect(() => {
    if (report.data && report.data.timezone !== timezone) setTimezone(report.data.timezone);
  }, [report.data, timezone]);

  const data = report.data;
  return (
    <>
      <PageHeader
        title="Analytics"
        description={
          <>
            How the AI and your team handle conversations, per day{data ? <> in the company timezone ({data.timezone})</> : null}. Owners and admins set the
            timezone in Settings.
          </>
        }
        actions={
          <Button
            onClick={() => {
              report.reload();
              filters.reload(); // integrations and agents added since the page opened
            }}
          >
            Refresh
          </Button>
        }
      />
      <section className="card analytics-controls" aria-label="Date range and filter">
        <SelectField label="Date range" value={preset} onValueChange={(v) => setPreset(v as Preset)} data-testid="analytics-range">
          <option value="7">Last 7 days</option>
          <option value="30">Last 30 days</option>
          <option value="90">Last 90 days</option>
          <option value="custom">Custom…</option>
        </SelectField>
        {preset === 'custom' && (
          <>
            <TextField label="From" type="date" value={customFrom} max={customTo} onValueChange={setCustomFrom} data-testid="analytics-from" />
            <TextField label="To" type="date" value={customTo} min={customFrom} onValueChange={setCustomTo} data-testid="analytics-to" />
          </>
        )}
        <SelectField label="Show" value={filter} onValueChange={setFilter} data-testid="analytics-filter">
          <option value="all">All integrations and agents</option>
          {filters.data && filters.data.integrations.length > 0 && (
            <optgroup label="Integration">
              {filters.data.integrations.map((i) => (
                <option key={i.id} value={`i:${i.id}`}>
                  {i.name}
                </option>
              ))}
            </optgroup>
          )}
          {filters.data && filters.data.agents.length > 0 && (
            <optgroup label="Agent">
              {filters.data.agents.map((a) => (
                <option key={a.id} value={`a:${a.id}`}>
                  {a.name}
                </option>
              ))}
            </optgroup>
          )}
        </SelectField>
        {rangeError && (
          <p className="notice notice-error analytics-range-error" role="alert">
            {rangeError}
          </p>
        )}
      </section>

      {rangeError ? null : report.loading && !data ? (
        <div className="card">
          <Skeleton rows={6} label="Loading analytics…" />
        </div>
      ) : report.error && !data ? (
        <ErrorState error={report.error} onRetry={report.reload} title="Could not load the analytics" />
      ) : data ? (
        <Report data={data} />
      ) : null}
      {!rangeError && <CsatSection from={range.from} to={range.to} />}
      {!rangeError && <ActionsSection from={range.from} to={range.to} />}
      {!rangeError && <SlaSection from={range.from} to={range.to} />}
    </>
  );
}

function hasActivity(data: AnalyticsReport): boolean {
  const t = data.totals;
  return t.conversationsStarted + t.customerMessages + t.aiReplies + t.operatorMessages + t.handedOff + t.repliesFailed + t.creditsSpentMicros + t.aiResolved > 0;
}

function Report({ data }: { data: AnalyticsReport }) {
  const t = data.totals;
  const charts = useMemo(() => {
    const dates = data.days.map((d) => d.date);
    const col = (f: (d: AnalyticsReport['days'][number]) => number | null) => data.days.map(f);
    const conversations: ChartSeries[] = [
      { label: 'Conversations started', values: col((d) => d.conversationsStarted), color: COLORS.a, summary: formatNumber(t.conversationsStarted) },
      { label: 'Active conversations', values: col((d) => d.conversationsActive), color: COLORS.b, summary: formatNumber(t.conversationsActive) },
      { label: 'Customer messages', values: col((d) => d.customerMessages), color: COLORS.c, summary: formatNumber(t.customerMessages) },
    ];
    const ai: ChartSeries[] = [
      { label: 'AI replies', values: col((d) => d.aiReplies), color: COLORS.a, summary: formatNumber(t.aiReplies) },
      { label: 'AI-resolved', values: col((d) => d.aiResolved), color: COLORS.b, summary: formatNumber(t.aiResolved) },
      { label: 'Handed off', values: col((d) => d.handedOff), color: COLORS.c, summary: formatNumber(t.handedOff) },
      { label: 'Failed replies', values: col((d) => d.repliesFailed), color: COLORS.d, summary: formatNumber(t.repliesFailed) },
    ];
    const firstResponse: ChartSeries[] = [
      { label: 'AI p50', values: col((d) => d.aiFirstResponse.p50Ms), color: COLORS.a, summary: formatDuration(t.aiFirstResponse.p50Ms) },
      { label: 'AI p90', values: col((d) => d.aiFirstResponse.p90Ms), color: COLORS.a, summary: formatDuration(t.aiFirstResponse.p90Ms), dashed: true },
      { label: 'Human p50', values: col((d) => d.humanFirstResponse.p50Ms), color: COLORS.c, summary: formatDuration(t.humanFirstResponse.p50Ms) },
      { label: 'Human p90', values: col((d) => d.humanFirstResponse.p90Ms), color: COLORS.c, summary: formatDuration(t.humanFirstResponse.p90Ms), dashed: true },
    ];
    const credits: ChartSeries[] = [{ label: 'Credits spent', values: col((d) => d.creditsSpentMicros), color: COLORS.e, summary: formatMicros(t.creditsSpentMicros) }];
    return { dates, conversations, ai, firstResponse, credits };
  }, [data, t]);

  if (!hasActivity(data)) {
    return (
      <div data-testid="analytics-empty">
        <EmptyState title={`No activity between ${formatDay(data.from, { long: true })} and ${formatDay(data.to, { long: true })}`}>
          Conversations, AI replies and handoffs appear here once customers write to one of your integrations. Try a longer range or another filter.
        </EmptyState>
      </div>
    );
  }

  const closedSessions = t.aiResolved;
  const totals: { label: string; value: string; hint?: string; id: string }[] = [
    { id: 'conversations', label: 'Conversations started', value: formatNumber(t.conversationsStarted) },
    { id: 'customer-messages', label: 'Customer messages', value: formatNumber(t.customerMessages) },
    { id: 'ai-replies', label: 'AI replies', value: formatNumber(t.aiReplies) },
    { id: 'ai-resolved', label: 'AI-resolved', value: formatNumber(closedSessions) },
    { id: 'handed-off', label: 'Handed off', value: formatNumber(t.handedOff), hint: formatPercent(t.handedOff, t.conversationsActive, '') && `${formatPercent(t.handedOff, t.conversationsActive)} of active` },
    { id: 'failed', label: 'Failed replies', value: formatNumber(t.repliesFailed) },
    { id: 'ai-first-response', label: 'AI first response (p50)', value: formatDuration(t.aiFirstResponse.p50Ms), hint: `p90 ${formatDuration(t.aiFirstResponse.p90Ms)}` },
    { id: 'human-first-response', label: 'Human first response (p50)', value: formatDuration(t.humanFirstResponse.p50Ms), hint: `p90 ${formatDuration(t.humanFirstResponse.p90Ms)}` },
    { id: 'credits', label: 'Credits spent', value: formatMicros(t.creditsSpentMicros) },
  ];
  const reasons = (Object.keys(HANDOFF_REASON_LABELS) as HandoffReason[]).map((r) => ({ reason: r, count: t.handoffReasons[r] ?? 0 }));

  return (
    <>
      <section className="analytics-totals" aria-label={`Totals from ${formatDay(data.from, { long: true })} to ${formatDay(data.to, { long: true })}`} data-testid="analytics-totals">
        {totals.map((item) => (
          <div className="card analytics-total" key={item.id} data-testid={`total-${item.id}`}>
            <span className="analytics-total-label">{item.label}</span>
            <strong className="analytics-total-value">{item.value}</strong>
            {item.hint ? <span className="analytics-total-hint muted small">{item.hint}</span> : null}
          </div>
        ))}
      </section>
      <div className="analytics-charts">
        <section className="card">
          <TimeSeriesChart testId="chart-conversations" title="Conversations and messages" dates={charts.dates} series={charts.conversations} formatValue={formatNumber} integer />
        </section>
        <section className="card">
          <TimeSeriesChart testId="chart-ai" title="AI replies, resolved and handed off" dates={charts.dates} series={charts.ai} formatValue={formatNumber} integer />
        </section>
        <section className="card">
          <TimeSeriesChart testId="chart-first-response" title="First-response time, AI and human" dates={charts.dates} series={charts.firstResponse} formatValue={formatAxisDuration} minTop={1000} />
          <p className="muted small">From a customer's first unanswered message to the first answer. Percentiles are within ±12%.</p>
        </section>
        <section className="card">
          <TimeSeriesChart testId="chart-credits" title="Credits spent" dates={charts.dates} series={charts.credits} formatValue={formatAxisMicros} minTop={10_000} />
        </section>
      </div>
      <CardSection title="Why conversations were handed off">
        {t.handedOff === 0 ? (
          <p className="muted">No conversation was handed off to a person in this range.</p>
        ) : (
          <DataTable testId="handoff-reasons" columns={['Reason', { label: 'Conversations', className: 'num' }, { label: 'Share', className: 'num' }]}>
            {reasons.map((r) => (
              <tr key={r.reason} data-reason={r.reason}>
                <td>{HANDOFF_REASON_LABELS[r.reason]}</td>
                <td className="num">{formatNumber(r.count)}</td>
                <td className="num">{formatPercent(r.count, t.handedOff)}</td>
              </tr>
            ))}
          </DataTable>
        )}
      </CardSection>
      {t.firstResponseByHours && (
        <CardSection title="First response inside and outside business hours">
          <DataTable
            testId="first-response-by-hours"
            columns={['Customer wrote', { label: 'AI p50', className: 'num' }, { label: 'Human p50', className: 'num' }, { label: 'Human p90', className: 'num' }, { label: 'Human replies', className: 'num' }]}
          >
            {(['inHours', 'outsideHours'] as const).map((k) => {
              const row = t.firstResponseByHours![k];
              return (
                <tr key={k} data-hours={k}>
                  <td>{k === 'inHours' ? 'Inside business hours' : 'Outside business hours'}</td>
                  <td className="num">{formatDuration(row.ai.p50Ms)}</td>
                  <td className="num">{formatDuration(row.human.p50Ms)}</td>
                  <td className="num">{formatDuration(row.human.p90Ms)}</td>
                  <td className="num">{formatNumber(row.human.count)}</td>
                </tr>
              );
            })}
          </DataTable>
          <p className="muted small">Business hours are set in Settings; without them every wait counts as inside.</p>
        </CardSection>
      )}
    </>
  );
}
