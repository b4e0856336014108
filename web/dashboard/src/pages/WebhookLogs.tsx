import { Fragment, useEffect, useRef, useState } from 'react';
import { subscribeWebhookLogs, type WebhookLogEvent } from '../api/events.js';
import { getWebhookLog, listIntegrations, listWebhookLogs } from '../api/endpoints.js';
import type { Integration, WebhookLog, WebhookLogDetail, WebhookOutcome } from '../api/types.js';
import { DataTable } from '../components/DataTable.js';
import { LoadMoreButton } from '../components/LoadMore.js';
import { Badge, Button, EmptyState, ErrorState, InlineError, PageHeader, SelectField, Skeleton, Time, type Tone } from '../components/ui.js';
import { humanize } from '../lib/format.js';
import { Link, navigate, useRoute } from '../lib/router.js';
import { useAsync } from '../lib/useAsync.js';
import { usePaged } from '../lib/usePaged.js';

const OUTCOME_TONE: Record<WebhookOutcome, Tone> = {
  processed: 'success',
  duplicate: 'info',
  ignored: 'neutral',
  rejected: 'danger',
};
const OUTCOMES: WebhookOutcome[] = ['processed', 'duplicate', 'ignored', 'rejected'];

/** `?integration=<id>` narrows to one integration (default: all of them); `?outcome=` to one outcome. */
export function WebhookLogsPage() {
  const route = useRoute();
  const integrations = useAsync((signal) => listIntegrations({ signal }), []);
  const list = integrations.data ?? [];
  const requested = Number(route.query.get('integration'));
  const integrationId = list.some((i) => i.id === requested) ? requested : null;
  const rawOutcome = route.query.get('outcome') as WebhookOutcome | null;
  const outcome = rawOutcome && OUTCOMES.includes(rawOutcome) ? rawOutcome : null;
  const go = (next: { integration?: number | null; outcome?: WebhookOutcome | null }) => {
    const params = new URLSearchParams();
    const i = next.integration !== undefined ? next.integration : integrationId;
    const o = next.outcome !== undefined ? next.outcome : outcome;
    if (i !== null) params.set('integration', String(i));
    if (o) params.set('outcome', o);
    const qs = params.toString();
    navigate(`/webhook-logs${qs ? `?${qs}` : ''}`, { replace: true });
  };

  return (
    <>
      <PageHeader title="Webhook logs" description="Every webhook delivery the service received, accepted or rejected — newest first, live." />
      {integrations.loading && !integrations.data ? (
        <div className="card">
          <Skeleton rows={5} />
        </div>
      ) : integrations.error && !integrations.data ? (
        <ErrorState error={integrations.error} onRetry={integrations.reload} title="Could not load the integrations" />
      ) : list.length === 0 ? (
        <EmptyState
          title="No integrations yet — create one to get a webhook URL"
          action={
            <Button variant="primary" onClick={() => navigate('/integrations/new')}>
              New integration
            </Button>
          }
        />
      ) : (
        <section className="card" aria-label="Webhook deliveries">
          <div className="toolbar">
            <SelectField
              label="Integration"
              value={integrationId === null ? '' : String(integrationId)}
              onValueChange={(value) => go({ integration: value ? Number(value) : null })}
            >
              <option value="">All integrations</option>
              {list.map((integration) => (
                <option key={integration.id} value={integration.id}>
                  {integration.name} ({integration.connectorType}, #{integration.id})
                </option>
              ))}
            </SelectField>
            <SelectField label="Outcome" value={outcome ?? ''} onValueChange={(v) => go({ outcome: (v || null) as WebhookOutcome | null })}>
              <option value="">All outcomes</option>
              {OUTCOMES.map((o) => (
                <option key={o} value={o}>
                  {humanize(o)}
                </option>
              ))}
            </SelectField>
          </div>
          <LogsTable key={`${integrationId ?? 'all'}:${outcome ?? ''}`} integrationId={integrationId} outcome={outcome} integrations={list} />
        </section>
      )}
    </>
  );
}

function LogsTable({ integrationId, outcome, integrations }: { integrationId: number | null; outcome: WebhookOutcome | null; integrations: Integration[] }) {
  const logs = usePaged<WebhookLog>((cursor, signal) => listWebhookLogs({ integrationId, outcome }, cursor, { signal }), [integrationId, outcome]);
  const [open, setOpen] = useState<string | null>(null);
  const names = new Map(integrations.map((i) => [i.id, i.name]));

  // Live: a logged delivery that matches the filters is put on top; after a gap in the stream, refetch.
  useWebhookLogEvents((event) => {
    if (integrationId !== null && event.integrationId !== integrationId) return;
    void getWebhookLog(event.logId).then(
      (log) => {
        if (outcome && log.outcome !== outcome) return;
        const { payload: _payload, ...entry } = log;
        logs.setItems((items) => (items?.some((i) => i.id === entry.id) ? items : [entry, ...(items ?? [])]));
      },
      () => logs.reload(),
    );
  }, logs.reload);

  if (logs.loading && !logs.items) return <Skeleton rows={6} label="Loading webhook logs…" />;
  if (logs.error && !logs.items) return <ErrorState error={logs.error} onRetry={logs.reload} title="Could not load the webhook logs" />;
  if (logs.items && logs.items.length === 0) {
    return (
      <EmptyState title={outcome ? `No ${outcome} deliveries` : 'No webhook deliveries yet'}>
        Register the webhook on the platform (Integrations → Register webhook), then send a message to your channel. Each delivery shows up here
        as it arrives.
      </EmptyState>
    );
  }
  const items = logs.items ?? [];
  return (
    <>
      <DataTable
        caption="Webhook deliveries"
        columns={['Time', ...(integrationId === null ? ['Integration'] : []), 'Outcome', 'HTTP status', 'Kind', 'Reason', 'Conversation']}
        actions="Payload"
      >
        {items.map((log) => (
          <Fragment key={log.id}>
            <tr data-testid="webhook-log-row" data-outcome={log.outcome} data-log-id={log.id}>
              <td>
                <Time iso={log.receivedAt} />
              </td>
              {integrationId === null && <td>{names.get(log.integrationId) ?? `#${log.integrationId}`}</td>}
              <td>
                <Badge tone={OUTCOME_TONE[log.outcome] ?? 'neutral'}>{log.outcome}</Badge>
              </td>
              <td>
                <span className={`http-status http-${String(log.httpStatus).charAt(0)}xx`}>{log.httpStatus}</span>
              </td>
              <td>{humanize(log.kind)}</td>
              <td className="wrap">{log.reason ?? <span className="muted">—</span>}</td>
              <td>
                {log.conversationId ? (
                  <Link to={`/conversations/${encodeURIComponent(log.conversationId)}`} data-testid="webhook-log-conversation">
                    Open
                  </Link>
                ) : (
                  <span className="muted">—</span>
                )}
              </td>
              <td className="actions">
                {log.hasPayload && (
                  <Button size="sm" onClick={() => setOpen(open === log.id ? null : log.id)} aria-expanded={open === log.id}>
                    {open === log.id ? 'Hide payload' : 'Payload'}
                  </Button>
                )}
              </td>
            </tr>
            {open === log.id && (
              <tr>
                <td colSpan={integrationId === null ? 8 : 7}>
                  <PayloadView logId={log.id} />
                </td>
              </tr>
            )}
          </Fragment>
        ))}
      </DataTable>
      <div className="list-foot">
        <span className="muted small">Showing {items.length}</span>
        <LoadMoreButton list={logs} />
      </div>
      <InlineError error={logs.loadMoreError} />
    </>
  );
}

function useWebhookLogEvents(handler: (event: WebhookLogEvent) => void, onResync: () => void) {
  const ref = useRef({ handler, onResync });
  ref.current = { handler, onResync };
  useEffect(
    () =>
      subscribeWebhookLogs(
        (event) => ref.current.handler(event),
        () => ref.current.onResync(),
      ),
    [],
  );
}

function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

/** Headers and body as the server kept them: signatures, tokens and secrets already replaced by [redacted]. */
function PayloadView({ logId }: { logId: string }) {
  const detail = useAsync<WebhookLogDetail>((signal) => getWebhookLog(logId, { signal }), [logId]);
  if (detail.loading && !detail.data) return <Skeleton rows={3} label="Loading payload…" />;
  if (detail.error && !detail.data) return <ErrorState error={detail.error} onRetry={detail.reload} title="Could not load the payload" />;
  const payload = detail.data?.payload;
  if (!payload) return <p className="muted">No payload was kept for this delivery.</p>;
  return (
    <div data-testid="webhook-log-payload">
      <p className="muted small">Secrets, tokens and signatures are never stored; they show as [redacted].</p>
      <pre className="code-box">
        {Object.entries(payload.headers)
          .map(([k, v]) => `${k}: ${v}`)
          .join('\n')}
      </pre>
      <pre className="code-box">{pretty(payload.body) || '(empty body)'}</pre>
      {payload.truncated && <p className="muted small">The body was cut: after 8 KiB, or after 256 characters when the signature did not verify.</p>}
    </div>
  );
}
