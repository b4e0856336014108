import { useEffect, useRef, useState, type FormEvent } from 'react';
import { describeError } from '../api/client.js';
import {
  getWebhookEndpoint,
  listWebhookDeliveries,
  replayWebhookEndpoint,
  resendWebhookDelivery,
  sendWebhookTestEvent,
  type SentAttempt,
  type WebhookDelivery,
  type WebhookDeliveryStatus,
  type WebhookEndpoint,
} from '../api/webhookEndpoints.js';
import { useAuth } from '../auth.js';
import { CardSection } from '../components/CardSection.js';
import { DataTable } from '../components/DataTable.js';
import { LoadMore } from '../components/LoadMore.js';
import { useToast } from '../components/Toasts.js';
import { Badge, Button, EmptyState, ErrorState, InlineError, ListState, PageHeader, Skeleton, TextField, Time, type Tone } from '../components/ui.js';
import { useSubmit } from '../components/useSubmit.js';
import { formatDuration, formatShort } from '../lib/format.js';
import { Link } from '../lib/router.js';
import { useAsync } from '../lib/useAsync.js';
import { usePaged, type PagedState } from '../lib/usePaged.js';
import { endpointStatus, lastAttempt, replayFrom, responseExcerpt, toLocalInput, withSentAttempt } from '../lib/webhookEvents.js';
import { ActiveSwitch, canManageWebhooks, DisabledBanners, EndpointFacts, WEBHOOKS_PATH } from './Webhooks.js';

const TEST_EVENT = 'webhook.test';
const STATUS_TONE: Record<WebhookDeliveryStatus, Tone> = { delivered: 'success', retrying: 'warning', failed: 'danger' };

/** One endpoint: its delivery log (with Resend), a test event, and a replay from a date and time. */
export function WebhookEndpointLogPage({ id }: { id: string }) {
  const { me } = useAuth();
  const manage = canManageWebhooks(me?.user.role);
  const endpoint = useAsync((signal) => getWebhookEndpoint(id, { signal }), [id]);
  const deliveries = usePaged((cursor, signal) => listWebhookDeliveries(id, cursor, { signal }), [id]);
  const onSent = useSentAttempt(deliveries);
  const back = (
    <Link to={WEBHOOKS_PATH} className="back-link">
      ← All endpoints
    </Link>
  );

  if (endpoint.loading && !endpoint.data) {
    return (
      <>
        <PageHeader title="Delivery log" description={back} />
        <div className="card">
          <Skeleton rows={4} />
        </div>
      </>
    );
  }
  if (!endpoint.data) {
    return (
      <>
        <PageHeader title="Delivery log" description={back} />
        <ErrorState error={endpoint.error} onRetry={endpoint.reload} title="Could not load the endpoint" />
      </>
    );
  }
  const current = endpoint.data;
  const status = endpointStatus(current);
  const onChange = (next: WebhookEndpoint) => endpoint.setData(next);
  return (
    <>
      <PageHeader title="Delivery log" description={back} actions={manage && <TestEventButton endpointId={id} onSent={onSent} />} />
      <DisabledBanners endpoints={[current]} manage={manage} onChange={onChange} />
      <section className="card" aria-label="Endpoint">
        <div className="card-head">
          <div className="card-title-block">
            <h2 className="card-title webhook-url">{current.url}</h2>
            <div className="card-meta">
              <Badge tone={status.tone} data-testid="webhook-endpoint-status">
                {status.label}
              </Badge>
              {current.description && <span className="muted">{current.description}</span>}
            </div>
          </div>
          {manage && <ActiveSwitch endpoint={current} onChange={onChange} />}
        </div>
        <EndpointFacts endpoint={current} />
      </section>
      {manage && <ReplayForm endpointId={id} onReplayed={deliveries.reload} />}
      <CardSection title="Deliveries">
        <div className="toolbar">
          <p className="muted small push-left">The most recently attempted first. A failed attempt is retried with growing waits for about 24 hours.</p>
          <Button size="sm" onClick={deliveries.reload} busy={deliveries.loading && Boolean(deliveries.items)}>
            Refresh
          </Button>
        </div>
        <DeliveriesTable endpointId={id} deliveries={deliveries} manage={manage} onSent={onSent} />
      </CardSection>
    </>
  );
}

type OnSent = (sent: SentAttempt, eventType: string) => void;

/**
 * Puts a send the user just made on top of the log at once, then reloads it after a moment: the attempt reaches
 * the server's log through its read model, a little after the send answered.
 */
function useSentAttempt(deliveries: PagedState<WebhookDelivery>): OnSent {
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => {
    if (timer.current) clearTimeout(timer.current);
  }, []);
  return (sent, eventType) => {
    deliveries.setItems((log) => withSentAttempt(log ?? [], sent, eventType));
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(deliveries.reload, 1500);
  };
}

function TestEventButton({ endpointId, onSent }: { endpointId: string; onSent: OnSent }) {
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  async function send() {
    setBusy(true);
    try {
      const sent = await sendWebhookTestEvent(endpointId);
      if (sent.ok) toast.success('Test event delivered');
      else toast.error(`The test event was not accepted: ${sent.httpStatus ?? 'no answer'}`);
      onSent(sent, TEST_EVENT);
    } catch (error) {
      toast.error(describeError(error));
    } finally {
      setBusy(false);
    }
  }
  return (
    <Button variant="primary" busy={busy} onClick={() => void send()}>
      Send test event
    </Button>
  );
}

function ReplayForm({ endpointId, onReplayed }: { endpointId: string; onReplayed: () => void }) {
  const toast = useToast();
  const [from, setFrom] = useState(() => toLocalInput(Date.now() - 3600_000));
  const submit = useSubmit();
  function onSubmit(event: FormEvent) {
    event.preventDefault();
    const at = replayFrom(from);
    if (!at) return submit.setError('Pick a date and time in the past.');
    void submit.run(async () => {
      await replayWebhookEndpoint(endpointId, at);
      toast.success('Replay started: every matching event since then is delivered again, in order');
      onReplayed();
    });
  }
  return (
    <CardSection title="Replay">
      <p className="muted small">
        After an outage of your receiver or a fix on your side: every event this endpoint takes, from the moment you pick on, is delivered again in
        order, with its original <code className="code-inline">webhook-id</code>.
      </p>
      <form className="inline-form" onSubmit={onSubmit}>
        <TextField label="Replay from" type="datetime-local" required value={from} onValueChange={setFrom} max={toLocalInput(Date.now())} data-testid="webhook-replay-from" />
        <Button type="submit" busy={submit.busy}>
          Replay
        </Button>
      </form>
      <InlineError error={submit.error} />
    </CardSection>
  );
}

function DeliveriesTable({ endpointId, deliveries, manage, onSent }: { endpointId: string; deliveries: PagedState<WebhookDelivery>; manage: boolean; onSent: OnSent }) {
  return (
    <ListState
      list={deliveries}
      items={deliveries.items}
      loadingLabel="Loading deliveries…"
      skeletonRows={4}
      errorTitle="Could not load the delivery log"
      empty={<EmptyState title="No deliveries yet">Events this endpoint takes show up here as they are sent. Try “Send test event”.</EmptyState>}
    >
      <DataTable cards caption="Deliveries" columns={['Event', 'Status', 'Attempts', 'HTTP status', 'Latency', 'Response', 'Last attempt', 'Next retry']} actions={manage ? true : undefined}>
        {deliveries.items?.map((delivery) => (
          <DeliveryRow key={delivery.id} endpointId={endpointId} delivery={delivery} manage={manage} onSent={onSent} />
        ))}
      </DataTable>
      <LoadMore list={deliveries} />
    </ListState>
  );
}

function DeliveryRow({ endpointId, delivery, manage, onSent }: { endpointId: string; delivery: WebhookDelivery; manage: boolean; onSent: OnSent }) {
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  const last = lastAttempt(delivery);
  async function resend() {
    setBusy(true);
    try {
      const sent = await resendWebhookDelivery(endpointId, delivery.id);
      if (sent.ok) toast.success('Sent again');
      else toast.error(`Sent again, not accepted: ${sent.httpStatus ?? 'no answer'}`);
      onSent(sent, delivery.eventType);
    } catch (error) {
      toast.error(describeError(error));
    } finally {
      setBusy(false);
    }
  }
  return (
    <tr data-testid="webhook-delivery-row" data-delivery-id={delivery.id} data-event-id={delivery.eventId} data-attempts={delivery.attempts} data-status={delivery.status} data-event-type={delivery.eventType}>
      <td data-label="Event">
        <code className="code-inline">{delivery.eventType}</code>
        {/* The webhook-id, cut to fit: the whole id is in the tooltip. */}
        <div className="muted small webhook-id" title={`webhook-id: ${delivery.eventId}`}>
          {delivery.eventId}
        </div>
      </td>
      <td data-label="Status">
        <Badge tone={STATUS_TONE[delivery.status] ?? 'neutral'}>{delivery.status}</Badge>
      </td>
      <td className="num" data-label="Attempts">
        {delivery.attempts}
      </td>
      <td data-label="HTTP status">
        {last?.httpStatus != null ? <span className={`http-status http-${String(last.httpStatus).charAt(0)}xx`}>{last.httpStatus}</span> : <span className="muted">none</span>}
      </td>
      <td className="nowrap" data-label="Latency">
        {last ? formatDuration(last.latencyMs) : '—'}
      </td>
      <td data-label="Response">
        {last?.response ? (
          <code className="code-inline webhook-response" title={last.response} data-testid="webhook-delivery-response">
            {responseExcerpt(last.response)}
          </code>
        ) : (
          <span className="muted">—</span>
        )}
      </td>
      <td className="nowrap" data-label="Last attempt">
        <Time iso={last?.at ?? delivery.updatedAt} format={formatShort} />
      </td>
      <td className="nowrap" data-label="Next retry">
        {delivery.nextRetryAt ? <Time iso={delivery.nextRetryAt} format={formatShort} /> : <span className="muted">—</span>}
      </td>
      {manage && (
        <td className="actions">
          {/* A test event is sent once, from its own button: nothing to resend. */}
          {delivery.eventType !== TEST_EVENT && (
            <Button size="sm" busy={busy} onClick={() => void resend()}>
              Resend
            </Button>
          )}
        </td>
      )}
    </tr>
  );
}
