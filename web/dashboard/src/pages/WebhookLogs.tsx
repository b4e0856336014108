import { useState, type ReactNode } from 'react';
import { listIntegrations, listWebhookLogs } from '../api/endpoints.js';
import type { WebhookLog, WebhookOutcome } from '../api/types.js';
import { Badge, Button, EmptyState, ErrorState, InlineError, PageHeader, SelectField, Skeleton, Time, type Tone } from '../components/ui.js';
import { humanize } from '../lib/format.js';
import { navigate, useRoute } from '../lib/router.js';
import { useAsync } from '../lib/useAsync.js';
import { usePaged } from '../lib/usePaged.js';

const OUTCOME_TONE: Record<WebhookOutcome, Tone> = {
  processed: 'success',
  duplicate: 'info',
  ignored: 'neutral',
  rejected: 'danger',
};

export function WebhookLogsPage() {
  const route = useRoute();
  const integrations = useAsync((signal) => listIntegrations({ signal }), []);
  const requested = Number(route.query.get('integration'));
  const list = integrations.data ?? [];
  const selected = list.find((i) => i.id === requested) ?? list.find((i) => i.connectorType === 'msgplatform') ?? list[0];

  return (
    <>
      <PageHeader title="Webhook logs" description="Every webhook delivery the service received, accepted or rejected — newest first." />
      {integrations.loading && !integrations.data ? (
        <div className="card">
          <Skeleton rows={5} />
        </div>
      ) : integrations.error && !integrations.data ? (
        <ErrorState error={integrations.error} onRetry={integrations.reload} title="Could not load the integrations" />
      ) : !selected ? (
        <EmptyState
          title="No integrations yet — create one to get a webhook URL"
          action={
            <Button variant="primary" onClick={() => navigate('/integrations/new')}>
              New integration
            </Button>
          }
        />
      ) : (
        <LogsTable
          key={selected.id}
          integrationId={selected.id}
          integrationSelect={
            <SelectField
              label="Integration"
              value={String(selected.id)}
              onValueChange={(value) => navigate(`/webhook-logs?integration=${value}`, { replace: true })}
            >
              {list.map((integration) => (
                <option key={integration.id} value={integration.id}>
                  {integration.name} ({integration.connectorType}, #{integration.id})
                </option>
              ))}
            </SelectField>
          }
        />
      )}
    </>
  );
}

function LogsTable({ integrationId, integrationSelect }: { integrationId: number; integrationSelect: ReactNode }) {
  const [outcome, setOutcome] = useState<'' | WebhookOutcome>('');
  const logs = usePaged<WebhookLog>((cursor, signal) => listWebhookLogs(integrationId, cursor, { signal }), [integrationId]);
  const shown = (logs.items ?? []).filter((log) => !outcome || log.outcome === outcome);

  return (
    <section className="card" aria-label="Webhook deliveries">
      <div className="toolbar">
        {integrationSelect}
        <SelectField label="Outcome" value={outcome} onValueChange={(v) => setOutcome(v as '' | WebhookOutcome)}>
          <option value="">All outcomes</option>
          <option value="processed">Processed</option>
          <option value="duplicate">Duplicate</option>
          <option value="ignored">Ignored</option>
          <option value="rejected">Rejected</option>
        </SelectField>
        <div className="toolbar-end">
          <Button onClick={logs.reload} busy={logs.loading && logs.items !== undefined}>
            Refresh
          </Button>
        </div>
      </div>
      {logs.loading && !logs.items ? (
        <Skeleton rows={6} label="Loading webhook logs…" />
      ) : logs.error && !logs.items ? (
        <ErrorState error={logs.error} onRetry={logs.reload} title="Could not load the webhook logs" />
      ) : logs.items && logs.items.length === 0 ? (
        <EmptyState title="No webhook deliveries yet">
          Register the webhook on the platform (Integrations → Register webhook), then send a message to your channel. Each delivery shows up
          here.
        </EmptyState>
      ) : (
        <>
          <div className="table-wrap">
            <table className="table">
              <caption className="visually-hidden">Webhook deliveries</caption>
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">HTTP status</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Reason</th>
                </tr>
              </thead>
              <tbody>
                {shown.map((log) => (
                  <tr key={log.id} data-testid="webhook-log-row" data-outcome={log.outcome}>
                    <td className="nowrap">
                      <Time iso={log.receivedAt} />
                    </td>
                    <td>
                      <Badge tone={OUTCOME_TONE[log.outcome] ?? 'neutral'}>{log.outcome}</Badge>
                    </td>
                    <td>
                      <span className={`http-status http-${String(log.httpStatus).charAt(0)}xx`}>{log.httpStatus}</span>
                    </td>
                    <td>{humanize(log.kind)}</td>
                    <td className="wrap">{log.reason ?? <span className="muted">—</span>}</td>
                  </tr>
                ))}
                {shown.length === 0 && (
                  <tr>
                    <td colSpan={5} className="muted center">
                      No {outcome} deliveries among the ones loaded{logs.nextCursor ? ' — load more to look further back' : ''}.
                    </td>
                  </tr>
                )}
              </tbody>
            </table>
          </div>
          <div className="list-foot">
            <span className="muted small">
              Showing {shown.length} of {logs.items?.length ?? 0} loaded
            </span>
            {logs.nextCursor && (
              <Button onClick={logs.loadMore} busy={logs.loadingMore}>
                Load more
              </Button>
            )}
          </div>
          <InlineError error={logs.loadMoreError} />
        </>
      )}
    </section>
  );
}
