import { useId, useState, type FormEvent } from 'react';
import { describeError } from '../api/client.js';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  listWebhookEndpoints,
  rotateWebhookEndpointSecret,
  updateWebhookEndpoint,
  type WebhookEndpoint,
} from '../api/webhookEndpoints.js';
import { useAuth } from '../auth.js';
import { LoadMore } from '../components/LoadMore.js';
import { ShownOnceDialog } from '../components/ShownOnceDialog.js';
import { useToast } from '../components/Toasts.js';
import { Badge, Button, ConfirmDialog, EmptyState, InlineError, ListState, Modal, PageHeader, Switch, TextField, Time } from '../components/ui.js';
import { useConfirmedDelete } from '../components/useConfirmedDelete.js';
import { useSubmit } from '../components/useSubmit.js';
import { Link } from '../lib/router.js';
import { usePaged } from '../lib/usePaged.js';
import { ALL_EVENTS, describeEventTypes, disabledSentence, endpointStatus, PUBLIC_EVENT_TYPES } from '../lib/webhookEvents.js';
import { CreditsLowThreshold } from './CreditsLowThreshold.js';
import './webhooks.css';

export const WEBHOOKS_PATH = '/developers/webhooks';

/** Owners and admins manage endpoints; every other role reads them (the API refuses its writes with 403). */
export const canManageWebhooks = (role: string | undefined) => role === 'owner' || role === 'admin';

type Shown = { secret: string; endpoint: WebhookEndpoint; rotated: boolean };

/** Developers → Webhooks: the endpoints that tell the company's own systems what happens. */
export function WebhooksPage() {
  const { me } = useAuth();
  const manage = canManageWebhooks(me?.user.role);
  const toast = useToast();
  const endpoints = usePaged((cursor, signal) => listWebhookEndpoints(cursor, { signal }), []);
  const [editing, setEditing] = useState<WebhookEndpoint | 'new' | null>(null);
  const [shown, setShown] = useState<Shown | null>(null);
  const replace = (next: WebhookEndpoint) => endpoints.setItems((list) => list?.map((e) => (e.id === next.id ? next : e)));
  const remove = useConfirmedDelete(async (endpoint: WebhookEndpoint) => {
    await deleteWebhookEndpoint(endpoint.id);
    endpoints.setItems((list) => list?.filter((e) => e.id !== endpoint.id));
    toast.success('Endpoint deleted');
  });
  const rotation = useRotation((result) => {
    replace(result.endpoint);
    setShown({ ...result, rotated: true });
  });

  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Developers → Webhooks: signed HTTP calls to your own systems (CRM, ticketing, data warehouse) whenever something happens."
        actions={
          manage && (
            <Button variant="primary" onClick={() => setEditing('new')}>
              New endpoint
            </Button>
          )
        }
      />
      <DisabledBanners endpoints={endpoints.items ?? []} manage={manage} onChange={replace} />
      {me && !manage && (
        <p className="notice notice-info" data-testid="webhooks-read-only">
          <strong>Read only for your role.</strong> Owners and admins manage the endpoints; you can see them and their delivery logs.
        </p>
      )}
      <ListState
        list={endpoints}
        items={endpoints.items}
        loadingLabel="Loading endpoints…"
        skeletonRows={4}
        errorTitle="Could not load the webhook endpoints"
        empty={
          <EmptyState title="No endpoints yet">
            Add an endpoint: a URL of yours that receives the events you pick, signed per the Standard Webhooks specification. See the
            docs under <code className="code-inline">docs/api/outbound-webhooks.md</code> for how a receiver verifies them.
          </EmptyState>
        }
      >
        <div className="card-grid">
          {endpoints.items?.map((endpoint) => (
            <EndpointCard key={endpoint.id} endpoint={endpoint} manage={manage} onChange={replace} onEdit={() => setEditing(endpoint)} onRotate={() => rotation.ask(endpoint)} onDelete={() => remove.ask(endpoint)} />
          ))}
        </div>
        <LoadMore list={endpoints} />
      </ListState>
      {me && (
        <div className="webhooks-foot">
          <CreditsLowThreshold manage={manage} />
        </div>
      )}

      {editing !== null && (
        <EndpointFormDialog
          endpoint={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={(endpoint, secret) => {
            setEditing(null);
            if (secret) {
              endpoints.setItems((list) => [...(list ?? []), endpoint]);
              setShown({ secret, endpoint, rotated: false });
            } else {
              replace(endpoint);
              toast.success('Endpoint saved');
            }
          }}
        />
      )}
      <SecretDialog shown={shown} onClose={() => setShown(null)} />
      <ConfirmDialog
        {...rotation.dialog}
        danger={false}
        title="Rotate the signing secret?"
        message={<p>A new secret signs every delivery to {rotation.target?.url} from now on. The current one keeps signing too, for 24 hours, so you can update your receiver without missing a delivery.</p>}
        confirmLabel="Rotate secret"
      />
      <ConfirmDialog
        {...remove.dialog}
        title="Delete this endpoint?"
        message={<p>{remove.target?.url} gets no more deliveries, and its delivery log goes with it. This cannot be undone.</p>}
        confirmLabel="Delete"
      />
    </>
  );
}

/** The rotate-secret confirmation: the new secret goes to `onRotated` (shown once). */
function useRotation(onRotated: (result: { endpoint: WebhookEndpoint; secret: string }) => void) {
  const flow = useConfirmedDelete(async (endpoint: WebhookEndpoint) => onRotated(await rotateWebhookEndpointSecret(endpoint.id)));
  return flow;
}

/** The signing secret of a new or rotated endpoint: the only time anyone sees it. */
export function SecretDialog({ shown, onClose }: { shown: Shown | null; onClose: () => void }) {
  return (
    <ShownOnceDialog
      value={shown?.secret ?? null}
      onClose={onClose}
      title={shown?.rotated ? 'The new signing secret' : 'Your endpoint’s signing secret'}
      warning="Copy this secret now. It won’t be shown again — if you lose it, rotate it."
      what="Signing secret"
      valueTestId="webhook-secret-value"
    >
      <p className="muted small">Endpoint: {shown?.endpoint.url}</p>
      {shown?.rotated && shown.endpoint.previousSecretValidUntil ? (
        <p className="small" data-testid="webhook-rotation-grace">
          Until <Time iso={shown.endpoint.previousSecretValidUntil} />, both the new and the previous secret sign every delivery (two signatures in{' '}
          <code className="code-inline">webhook-signature</code>): switch your receiver to the new one before then.
        </p>
      ) : (
        <p className="small">
          Your receiver verifies each delivery’s <code className="code-inline">webhook-id</code>, <code className="code-inline">webhook-timestamp</code> and{' '}
          <code className="code-inline">webhook-signature</code> headers with it, for example with the <code className="code-inline">standardwebhooks</code> package.
        </p>
      )}
    </ShownOnceDialog>
  );
}

/** The endpoints the service switched off: the company must know, and can switch them back on here. */
export function DisabledBanners({ endpoints, manage, onChange }: { endpoints: WebhookEndpoint[]; manage: boolean; onChange: (next: WebhookEndpoint) => void }) {
  const disabled = endpoints.filter((e) => e.disabled);
  if (disabled.length === 0) return null;
  return (
    <div className="webhook-banners">
      {disabled.map((endpoint) => (
        <div key={endpoint.id} className="notice notice-error webhook-banner" role="alert" data-testid="webhook-disabled-banner">
          <span>
            {disabledSentence(endpoint)} <span className="muted small">(<Time iso={endpoint.disabled?.at} />)</span>
          </span>
          {manage && <EnableButton endpoint={endpoint} onChange={onChange} />}
        </div>
      ))}
    </div>
  );
}

function EnableButton({ endpoint, onChange }: { endpoint: WebhookEndpoint; onChange: (next: WebhookEndpoint) => void }) {
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  async function enable() {
    setBusy(true);
    try {
      onChange(await updateWebhookEndpoint(endpoint.id, { active: true }));
      toast.success('Endpoint enabled: delivery resumes where it stopped');
    } catch (error) {
      toast.error(describeError(error));
    } finally {
      setBusy(false);
    }
  }
  return (
    <Button size="sm" variant="primary" busy={busy} onClick={() => void enable()}>
      Enable
    </Button>
  );
}

/** On and off by hand; turning on a disabled endpoint also clears its disabled state. */
export function ActiveSwitch({ endpoint, onChange }: { endpoint: WebhookEndpoint; onChange: (next: WebhookEndpoint) => void }) {
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  async function toggle(active: boolean) {
    setBusy(true);
    try {
      onChange(await updateWebhookEndpoint(endpoint.id, { active }));
      toast.success(active ? 'Endpoint enabled' : 'Endpoint disabled');
    } catch (error) {
      toast.error(describeError(error));
    } finally {
      setBusy(false);
    }
  }
  return <Switch label="Active" checked={endpoint.active} disabled={busy} onChange={(v) => void toggle(v)} />;
}

function EndpointCard({
  endpoint,
  manage,
  onChange,
  onEdit,
  onRotate,
  onDelete,
}: {
  endpoint: WebhookEndpoint;
  manage: boolean;
  onChange: (next: WebhookEndpoint) => void;
  onEdit: () => void;
  onRotate: () => void;
  onDelete: () => void;
}) {
  const titleId = useId();
  const status = endpointStatus(endpoint);
  return (
    <article className="card" data-testid="webhook-endpoint-card" data-endpoint-id={endpoint.id} aria-labelledby={titleId}>
      <div className="card-head">
        <div className="card-title-block">
          <h2 className="card-title webhook-url" id={titleId}>
            {endpoint.url}
          </h2>
          <div className="card-meta">
            <Badge tone={status.tone} data-testid="webhook-endpoint-status">
              {status.label}
            </Badge>
            {endpoint.description && <span className="muted">{endpoint.description}</span>}
          </div>
        </div>
        {manage && <ActiveSwitch endpoint={endpoint} onChange={onChange} />}
      </div>
      <EndpointFacts endpoint={endpoint} />
      <div className="card-foot">
        <Link to={`${WEBHOOKS_PATH}/${endpoint.id}`} className="btn btn-secondary btn-sm">
          Delivery log
        </Link>
        {manage && (
          <>
            <Button size="sm" onClick={onEdit}>
              Edit
            </Button>
            <Button size="sm" onClick={onRotate}>
              Rotate secret
            </Button>
            <Button size="sm" variant="ghost" className="danger-text" onClick={onDelete}>
              Delete
            </Button>
          </>
        )}
      </div>
    </article>
  );
}

/** What an endpoint takes and how it stands, as a card and the delivery log's header show it. */
export function EndpointFacts({ endpoint }: { endpoint: WebhookEndpoint }) {
  return (
    <dl className="kv">
      <dt>Events</dt>
      <dd data-testid="webhook-endpoint-events">{describeEventTypes(endpoint.eventTypes)}</dd>
      {endpoint.disabled && (
        <>
          <dt>Disabled</dt>
          <dd>
            {endpoint.disabled.reason} (<Time iso={endpoint.disabled.at} />)
          </dd>
        </>
      )}
      {endpoint.previousSecretValidUntil && Date.parse(endpoint.previousSecretValidUntil) > Date.now() && (
        <>
          <dt>Rotation</dt>
          <dd>
            The previous secret also signs until <Time iso={endpoint.previousSecretValidUntil} />
          </dd>
        </>
      )}
      <dt>Created</dt>
      <dd>
        <Time iso={endpoint.createdAt} />
      </dd>
    </dl>
  );
}

function EndpointFormDialog({ endpoint, onClose, onSaved }: { endpoint: WebhookEndpoint | null; onClose: () => void; onSaved: (endpoint: WebhookEndpoint, secret: string | null) => void }) {
  const formId = useId();
  const [url, setUrl] = useState(endpoint?.url ?? '');
  const [description, setDescription] = useState(endpoint?.description ?? '');
  const [types, setTypes] = useState<string[]>(endpoint?.eventTypes ?? []);
  const save = useSubmit();
  const all = types.includes(ALL_EVENTS);

  function toggle(type: string, on: boolean) {
    setTypes((current) => (type === ALL_EVENTS ? (on ? [ALL_EVENTS] : []) : on ? [...current.filter((t) => t !== type), type] : current.filter((t) => t !== type)));
  }

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    if (types.length === 0) return save.setError('Pick at least one event type.');
    const input = { url: url.trim(), eventTypes: types, description: description.trim() };
    void save.run(async () => {
      if (endpoint) onSaved(await updateWebhookEndpoint(endpoint.id, input), null);
      else {
        const created = await createWebhookEndpoint(input);
        onSaved(created.endpoint, created.secret);
      }
    });
  }

  return (
    <Modal
      open
      onClose={onClose}
      title={endpoint ? 'Edit endpoint' : 'New endpoint'}
      footer={
        <>
          <Button onClick={onClose} disabled={save.busy}>
            Cancel
          </Button>
          <Button type="submit" form={formId} variant="primary" busy={save.busy} disabled={!url.trim() || types.length === 0}>
            {endpoint ? 'Save' : 'Create endpoint'}
          </Button>
        </>
      }
    >
      <form id={formId} className="form" onSubmit={onSubmit}>
        <TextField label="URL" type="url" inputMode="url" required maxLength={2000} value={url} onValueChange={setUrl} placeholder="https://crm.example.com/hooks" hint="HTTPS, on a public address. Redirects are not followed." />
        <TextField label="Description" maxLength={500} value={description} onValueChange={setDescription} placeholder="e.g. CRM sync" />
        <fieldset className="fieldset webhook-types" data-testid="webhook-event-types">
          <legend>Events</legend>
          <label className="webhook-type">
            <input type="checkbox" checked={all} onChange={(e) => toggle(ALL_EVENTS, e.target.checked)} />
            <span>All events, including types added later</span>
          </label>
          {PUBLIC_EVENT_TYPES.map(({ type, label }) => (
            <label key={type} className="webhook-type">
              <input type="checkbox" checked={all || types.includes(type)} disabled={all} onChange={(e) => toggle(type, e.target.checked)} />
              <code className="code-inline">{type}</code>
              <span className="muted small">{label}</span>
            </label>
          ))}
        </fieldset>
        <InlineError error={save.error} />
      </form>
    </Modal>
  );
}
