import { useEffect, useId, useMemo, useRef, useState, type FormEvent } from 'react';
import { API_BASE, ApiError, describeError } from '../api/client.js';
import {
  createIntegration,
  deleteIntegration,
  getIntegration,
  listAgents,
  listIntegrations,
  registerWebhook,
  updateIntegration,
} from '../api/endpoints.js';
import type { Agent, ConnectorType, Integration, IntegrationChanges } from '../api/types.js';
import { useToast } from '../components/Toasts.js';
import { UnsavedChangesGuard } from '../components/UnsavedChangesGuard.js';
import { useConfirmedDelete } from '../components/useConfirmedDelete.js';
import { useSubmit } from '../components/useSubmit.js';
import { WebchatGreeting } from '../components/WebchatGreeting.js';
import { WebchatIdentity } from '../components/WebchatIdentity.js';
import {
  Badge,
  Button,
  ConfirmDialog,
  CopyButton,
  EmptyState,
  ErrorState,
  InlineError,
  PageHeader,
  SelectField,
  SetBadge,
  Skeleton,
  Switch,
  TextAreaField,
  TextField,
  Time,
} from '../components/ui.js';
import { formatDateTime } from '../lib/format.js';
import { t } from '../lib/messages.js';
import { Link, navigate } from '../lib/router.js';
import { useAsync } from '../lib/useAsync.js';
import { SandboxBadge, TestMessageForm } from '../components/testMessage.js';

export const PLATFORM_PRESETS = [
  { label: 'Global (https://api.chat2desk.com)', url: 'https://api.chat2desk.com' },
  { label: 'Europe (https://api.chat24.io)', url: 'https://api.chat24.io' },
];

export const CONNECTOR_LABELS: Record<ConnectorType, string> = {
  msgplatform: 'Messaging platform',
  webchat: 'Web chat',
};

/** Where the widget script is served: the API's origin. */
export function widgetOrigin(): string {
  if (API_BASE) {
    try {
      return new URL(API_BASE, window.location.href).origin;
    } catch {
      // fall through
    }
  }
  return window.location.origin;
}

export function embedSnippet(integrationId: number): string {
  return `<script src="${widgetOrigin()}/widget.js" data-integration-id="${integrationId}" async></script>`;
}

/** A strong random secret (256 bits, hex). */
export function generateSecret(): string {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export function IntegrationsPage() {
  const integrations = useAsync((signal) => listIntegrations({ signal }), []);
  const agents = useAsync((signal) => listAgents({ signal }), []);
  const agentNames = useMemo(() => new Map((agents.data ?? []).map((a) => [a.id, a.name])), [agents.data]);

  const replace = (next: Integration) => integrations.setData((list) => list?.map((item) => (item.id === next.id ? next : item)));

  return (
    <>
      <PageHeader
        title="Integrations"
        description="Connect a messaging platform account or a web chat widget, and choose which agent answers."
        actions={
          <Button variant="primary" onClick={() => navigate('/integrations/new')}>
            New integration
          </Button>
        }
      />
      {integrations.loading && !integrations.data ? (
        <div className="card-grid">
          {[0, 1].map((i) => (
            <div className="card" key={i}>
              <Skeleton rows={4} />
            </div>
          ))}
        </div>
      ) : integrations.error && !integrations.data ? (
        <ErrorState error={integrations.error} onRetry={integrations.reload} title="Could not load the integrations" />
      ) : integrations.data && integrations.data.length === 0 ? (
        <EmptyState title="No integrations yet — create one to get a webhook URL">
          Click <strong>New integration</strong>. A messaging platform integration gives you a webhook URL to register on the platform; a
          web chat integration gives you a snippet to paste into your site.
        </EmptyState>
      ) : (
        <div className="card-grid">
          {integrations.data?.map((integration) => (
            <IntegrationCard
              key={integration.id}
              integration={integration}
              agentName={integration.agentId ? (agentNames.get(integration.agentId) ?? null) : null}
              onChange={replace}
            />
          ))}
        </div>
      )}
    </>
  );
}

type RegisterOutcome = { ok: true; at: string } | { ok: false; message: string };

function IntegrationCard({ integration, agentName, onChange }: { integration: Integration; agentName: string | null; onChange: (next: Integration) => void }) {
  const toast = useToast();
  const [toggling, setToggling] = useState(false);
  const [registering, setRegistering] = useState(false);
  const [outcome, setOutcome] = useState<RegisterOutcome | null>(null);
  const urlId = useId();
  const snippetId = useId();
  const titleId = useId();
  const isPlatform = integration.connectorType === 'msgplatform';
  const registered = integration.webhookRegistered || Boolean(integration.webhookRegisteredAt);

  async function toggleActive(active: boolean) {
    setToggling(true);
    onChange({ ...integration, active });
    try {
      onChange(await updateIntegration(integration.id, { active }));
      toast.success(`${integration.name} is now ${active ? 'active' : 'inactive'}`);
    } catch (error) {
      onChange({ ...integration, active: !active });
      toast.error(describeError(error));
    } finally {
      setToggling(false);
    }
  }

  async function register() {
    setRegistering(true);
    setOutcome(null);
    try {
      const result = await registerWebhook(integration.id);
      const at = result.webhookRegisteredAt ?? new Date().toISOString();
      onChange({ ...integration, webhookRegistered: true, webhookRegisteredAt: at });
      setOutcome({ ok: true, at });
      toast.success('Webhook registered on the platform');
    } catch (error) {
      let message: string;
      if (error instanceof ApiError && (error.code === 'not_supported' || error.code === 'NOT_SUPPORTED')) {
        message = 'Set the platform API URL first';
      } else if (error instanceof ApiError && error.code === 'PLATFORM_ERROR') {
        message = `The platform refused the registration: ${error.message}`;
      } else {
        message = describeError(error);
      }
      setOutcome({ ok: false, message });
      toast.error(message);
    } finally {
      setRegistering(false);
    }
  }

  return (
    <article className="card integration-card" data-testid={`integration-card-${integration.id}`} aria-labelledby={titleId}>
      <div className="card-head">
        <div className="card-title-block">
          <h2 className="card-title" id={titleId}>
            {integration.name}
          </h2>
          <div className="card-meta">
            <Badge tone="info" data-testid="connector-type">
              {integration.connectorType}
            </Badge>
            <span className="muted">{CONNECTOR_LABELS[integration.connectorType] ?? integration.connectorType}</span>
            <span className="muted">· #{integration.id}</span>
            <SandboxBadge integration={integration} />
          </div>
        </div>
        <Switch label="Active" checked={integration.active} disabled={toggling} onChange={toggleActive} />
      </div>

      <dl className="kv">
        <dt>Agent</dt>
        <dd>{integration.agentId ? (agentName ?? <span className="muted">Unknown agent</span>) : <span className="muted">No agent — messages won’t be answered</span>}</dd>
        {isPlatform && (
          <>
            <dt>Platform API</dt>
            <dd>{integration.apiUrl ? <code className="code-inline">{integration.apiUrl}</code> : <span className="muted">Not set</span>}</dd>
            <dt>Secrets</dt>
            <dd className="inline-list">
              <span>
                Webhook secret <SetBadge set={integration.hasWebhookSecret} />
              </span>
              <span>
                API token <SetBadge set={integration.hasApiToken} />
              </span>
            </dd>
          </>
        )}
      </dl>

      {isPlatform ? (
        <>
          {!integration.hasWebhookSecret && (
            <p className="notice notice-warning">No webhook secret is set: the platform’s webhooks will be rejected until you set one.</p>
          )}
          <div className="copy-row">
            <span className="copy-label" id={`${urlId}-label`}>
              Webhook URL
            </span>
            <code className="code-box" id={urlId} data-testid="webhook-url">
              {integration.webhookUrl}
            </code>
            <CopyButton text={integration.webhookUrl} describedBy={`${urlId}-label`} what="Webhook URL" />
          </div>
          <div className="webhook-row">
            <div className="webhook-status-line">
              {registered ? (
                <>
                  <Badge tone="success" data-testid="webhook-status" data-registered="true" title={`Registered ${formatDateTime(integration.webhookRegisteredAt)}`}>
                    Registered
                  </Badge>
                  {integration.webhookRegisteredAt && (
                    <span className="muted small" data-testid="webhook-registered-at">
                      <Time iso={integration.webhookRegisteredAt} />
                    </span>
                  )}
                </>
              ) : (
                <Badge tone="neutral" data-testid="webhook-status" data-registered="false">
                  Not registered
                </Badge>
              )}
            </div>
            {/* Without an API URL there is nowhere to register: not the page's main action then, and disabled. */}
            <Button
              variant={registered || !integration.apiUrl ? 'secondary' : 'primary'}
              size="sm"
              busy={registering}
              disabled={!integration.apiUrl}
              aria-describedby={integration.apiUrl ? undefined : `${urlId}-register-hint`}
              onClick={register}
            >
              {registered ? 'Re-register webhook' : 'Register webhook'}
            </Button>
          </div>
          {!integration.apiUrl && (
            <p className="field-hint" id={`${urlId}-register-hint`} data-testid="register-hint">
              {t.integrations.registerNeedsUrl} <Link to={`/integrations/${integration.id}`}>{t.integrations.editToSetUrl}</Link>
            </p>
          )}
          <div role="status" className="register-outcome" data-testid="register-outcome">
            {outcome &&
              (outcome.ok ? (
                <p className="notice notice-success">
                  Webhook registered at <Time iso={outcome.at} />.
                </p>
              ) : (
                <p className="notice notice-error">{outcome.message}</p>
              ))}
          </div>
          <TestMessageForm integration={integration} />
        </>
      ) : (
        <>
          <div className="copy-row copy-row-block">
            <span className="copy-label" id={`${snippetId}-label`}>
              Embed snippet
            </span>
            <pre className="code-box" id={snippetId} data-testid="embed-snippet">
              {embedSnippet(integration.id)}
            </pre>
            <CopyButton text={embedSnippet(integration.id)} describedBy={`${snippetId}-label`} what="Embed snippet" />
          </div>
          <p className="small muted">
            Allowed origins:{' '}
            {integration.allowedOrigins && integration.allowedOrigins.length > 0
              ? integration.allowedOrigins.join(', ')
              : 'none yet — add the sites that may embed the widget'}
          </p>
        </>
      )}

      <div className="card-foot">
        <Link to={`/integrations/${integration.id}`} className="btn btn-secondary btn-sm">
          Edit
        </Link>
        {isPlatform && (
          <Link to={`/webhook-logs?integration=${integration.id}`} className="btn btn-ghost btn-sm">
            View logs
          </Link>
        )}
      </div>
    </article>
  );
}

// ---------------------------------------------------------------------------------------------
// Create / edit
// ---------------------------------------------------------------------------------------------

export function IntegrationFormPage({ id }: { id: number | null }) {
  const existing = useAsync((signal) => (id === null ? Promise.resolve(null) : getIntegration(id, { signal })), [id]);
  const agents = useAsync((signal) => listAgents({ signal }), []);

  const title = id === null ? 'New integration' : 'Edit integration';
  return (
    <>
      <PageHeader
        title={title}
        description={
          <Link to="/integrations" className="back-link">
            ← All integrations
          </Link>
        }
      />
      {existing.loading && existing.data === undefined ? (
        <div className="card">
          <Skeleton rows={6} />
        </div>
      ) : existing.error ? (
        <ErrorState error={existing.error} onRetry={existing.reload} title="Could not load the integration" />
      ) : (
        <IntegrationForm key={existing.data?.id ?? 'new'} integration={existing.data ?? null} agents={agents.data} agentsError={agents.error} />
      )}
    </>
  );
}

/**
 * The form's non-secret fields, kept in sessionStorage while the user follows "create an agent" and comes back.
 * Secrets (API token, webhook secret) are never written there: they are typed again.
 */
interface IntegrationDraft {
  name: string;
  connectorType: ConnectorType;
  apiUrl: string;
  active: boolean;
  agentId: string;
  origins: string;
}
const draftKey = (integration: Integration | null) => `mas.integrationDraft.${integration?.id ?? 'new'}`;

function takeDraft(integration: Integration | null): IntegrationDraft | null {
  try {
    const raw = sessionStorage.getItem(draftKey(integration));
    sessionStorage.removeItem(draftKey(integration));
    return raw ? (JSON.parse(raw) as IntegrationDraft) : null;
  } catch {
    return null;
  }
}

/** The agent a new integration starts with: the only one, else the first active one. */
export function defaultAgentId(agents: Agent[] | undefined): string {
  if (!agents || agents.length === 0) return '';
  return (agents.find((a) => a.active) ?? agents[0]!).id;
}

function IntegrationForm({ integration, agents, agentsError }: { integration: Integration | null; agents: Agent[] | undefined; agentsError: unknown }) {
  const toast = useToast();
  const isNew = integration === null;
  const [restored] = useState(() => takeDraft(integration));
  const initial: IntegrationDraft = {
    name: integration?.name ?? '',
    connectorType: integration?.connectorType ?? 'msgplatform',
    apiUrl: integration?.apiUrl ?? '',
    active: integration?.active ?? true,
    agentId: integration?.agentId ?? '',
    origins: (integration?.allowedOrigins ?? []).join('\n'),
  };
  const start = restored ?? initial;
  const [name, setName] = useState(start.name);
  const [connectorType, setConnectorType] = useState<ConnectorType>(start.connectorType);
  const [apiUrl, setApiUrl] = useState(start.apiUrl);
  const [apiToken, setApiToken] = useState('');
  const [webhookSecret, setWebhookSecret] = useState('');
  const [generated, setGenerated] = useState<string | null>(null);
  const [active, setActive] = useState(start.active);
  const [agentId, setAgentIdState] = useState(start.agentId);
  const agentTouched = useRef(restored !== null);
  const setAgentId = (value: string) => {
    agentTouched.current = true;
    setAgentIdState(value);
  };
  const [origins, setOrigins] = useState(start.origins);
  const [greeting, setGreeting] = useState(integration?.greeting ?? '');
  const [csat, setCsat] = useState(integration?.csat ?? { enabled: false, skipWithoutCustomerReply: true });
  const [identityVerification, setIdentityVerification] = useState(integration?.identityVerification ?? 'off');
  const [prechatForm, setPrechatForm] = useState(integration?.prechatForm ?? false);
  const guard = useRef<{ allowNext: () => void } | null>(null);

  // A new integration answers with the company's agent unless the user chose otherwise: "No agent" is a choice,
  // not a default that silently leaves customers unanswered.
  useEffect(() => {
    if (isNew && !agentTouched.current && agents) setAgentIdState(defaultAgentId(agents));
  }, [isNew, agents]);

  const draft: IntegrationDraft = { name, connectorType, apiUrl, active, agentId, origins };
  const baseline = isNew ? { ...initial, agentId: agentTouched.current ? initial.agentId : defaultAgentId(agents) } : initial;
  const dirty = JSON.stringify(draft) !== JSON.stringify(baseline) || apiToken !== '' || webhookSecret !== '';
  const keepDraftAndGo = () => {
    try {
      sessionStorage.setItem(draftKey(integration), JSON.stringify(draft));
    } catch {
      // Storage full or disabled: the unsaved-changes prompt still protects the typing.
      return;
    }
    guard.current?.allowNext();
  };
  const createAgentLink = (label: string) => (
    <Link to="/agents/new" onClick={keepDraftAndGo}>
      {label}
    </Link>
  );
  const save = useSubmit();
  const deletion = useConfirmedDelete(async (doomed: Integration) => {
    await deleteIntegration(doomed.id);
    toast.success(`Integration “${doomed.name}” deleted`);
    navigate('/integrations');
  });
  const secretBoxId = useId();
  const isPlatform = connectorType === 'msgplatform';

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    const input: IntegrationChanges = { name: name.trim(), active, csat };
    if (agentId) input.agentId = agentId;
    else if (integration?.agentId) input.agentId = null;
    if (isPlatform) {
      const url = apiUrl.trim();
      if (url) input.apiUrl = url;
      else if (integration?.apiUrl) input.apiUrl = null;
      if (apiToken) input.apiToken = apiToken;
      if (webhookSecret) input.webhookSecret = webhookSecret;
    } else {
      input.allowedOrigins = origins
        .split(/\r?\n/)
        .map((line) => line.trim().replace(/\/+$/, ''))
        .filter(Boolean);
      if (greeting.trim() || integration?.greeting) input.greeting = greeting.trim() || null;
      if (prechatForm !== (integration?.prechatForm ?? false)) input.prechatForm = prechatForm;
      if (!isNew && identityVerification !== (integration.identityVerification ?? 'off')) input.identityVerification = identityVerification;
    }
    void save.run(
      async () => {
        if (isNew) {
          const created = await createIntegration({ ...input, name: name.trim(), connectorType });
          toast.success(`Integration “${created.name}” created`);
        } else {
          await updateIntegration(integration.id, input);
          toast.success('Integration saved');
        }
        navigate('/integrations');
      },
      { leaves: true },
    );
  }

  return (
    <form className="card form form-card" onSubmit={onSubmit}>
      <TextField label="Name" required maxLength={200} value={name} onValueChange={setName} placeholder="e.g. WhatsApp sales line" />

      {isNew ? (
        <SelectField
          label="Connector type"
          value={connectorType}
          onValueChange={(v) => setConnectorType(v as ConnectorType)}
          hint={isPlatform ? 'Messages arrive by webhook from the messaging platform.' : 'Messages arrive from the chat widget on your website.'}
        >
          <option value="msgplatform">msgplatform — messaging platform (webhook)</option>
          <option value="webchat">webchat — web chat widget</option>
        </SelectField>
      ) : (
        <div className="field">
          <span className="field-label">Connector type</span>
          <div>
            <Badge tone="info">{connectorType}</Badge> <span className="muted small">cannot be changed</span>
          </div>
        </div>
      )}

      <SelectField
        label="Agent"
        value={agentId}
        onValueChange={setAgentId}
        hint={
          agentsError ? (
            <span className="field-error">Could not load the agents: {describeError(agentsError)}</span>
          ) : agents && agents.length === 0 ? (
            <>
              {t.integrations.noAgentsYet} {createAgentLink(t.integrations.createAgent)} {t.integrations.toAnswer}
            </>
          ) : (
            <>
              {t.integrations.agentHint} {createAgentLink(t.integrations.createAnotherAgent)}
            </>
          )
        }
      >
        <option value="">— No agent —</option>
        {agents?.map((agent) => (
          <option key={agent.id} value={agent.id}>
            {agent.name}
            {agent.active ? '' : ' (inactive)'}
          </option>
        ))}
        {agentId && agents && !agents.some((a) => a.id === agentId) && <option value={agentId}>Unknown agent ({agentId})</option>}
      </SelectField>

      {isPlatform ? (
        <fieldset className="fieldset">
          <legend>Messaging platform</legend>
          <TextField
            label="Platform API URL"
            type="url"
            inputMode="url"
            value={apiUrl}
            onValueChange={setApiUrl}
            placeholder="https://api.chat2desk.com"
            hint="Use the instance that matches your platform account. Needed to register the webhook and to send replies."
          />
          <div className="preset-row" role="group" aria-label="Known platform instances">
            {PLATFORM_PRESETS.map((preset) => (
              <Button key={preset.url} size="sm" variant={apiUrl === preset.url ? 'primary' : 'secondary'} aria-pressed={apiUrl === preset.url} onClick={() => setApiUrl(preset.url)}>
                {preset.label}
              </Button>
            ))}
          </div>
          <TextField
            label="Platform API token"
            type="password"
            autoComplete="off"
            value={apiToken}
            onValueChange={setApiToken}
            aside={!isNew ? <SetBadge set={integration.hasApiToken} /> : undefined}
            placeholder={integration?.hasApiToken ? 'set — leave blank to keep it' : 'Paste the token from the platform'}
            hint={isNew ? t.integrations.writeOnly : `${t.integrations.writeOnly} ${t.integrations.blankKeeps}`}
          />
          <div className="field">
            <TextField
              label="Webhook secret"
              type="password"
              autoComplete="new-password"
              value={webhookSecret}
              onValueChange={(v) => {
                setWebhookSecret(v);
                if (v !== generated) setGenerated(null);
              }}
              aside={!isNew ? <SetBadge set={integration.hasWebhookSecret} /> : undefined}
              placeholder={integration?.hasWebhookSecret ? 'set — leave blank to keep it' : 'A long random string'}
              hint={isNew ? t.integrations.secretHint : `${t.integrations.secretHint} ${t.integrations.blankKeeps}`}
            />
            <div>
              <Button
                size="sm"
                onClick={() => {
                  const secret = generateSecret();
                  setWebhookSecret(secret);
                  setGenerated(secret);
                }}
              >
                Generate
              </Button>
            </div>
            {generated && (
              <div className="secret-reveal" role="status">
                <p className="small">
                  <strong>New secret — copy it now.</strong> Paste it in the platform’s webhook settings. It won’t be shown again after you
                  save.
                </p>
                <div className="copy-row">
                  <code className="code-box" id={secretBoxId} data-testid="generated-secret">
                    {generated}
                  </code>
                  <CopyButton text={generated} describedBy={secretBoxId} what="Webhook secret" />
                </div>
              </div>
            )}
          </div>
        </fieldset>
      ) : (
        <fieldset className="fieldset">
          <legend>Web chat</legend>
          <TextAreaField
            label="Allowed origins"
            rows={4}
            value={origins}
            onValueChange={setOrigins}
            placeholder={'https://www.example.com\nhttps://shop.example.com'}
            hint="One origin per line (scheme and host, e.g. https://www.example.com). Only these sites may embed the widget."
          />
          <WebchatGreeting value={greeting} onChange={setGreeting} integrationId={integration?.id ?? null} />
          <Switch
            label="Ask for a name and email before the chat"
            checked={prechatForm}
            onChange={setPrechatForm}
            hint="A new visitor sees an optional form (name, email; they may skip it). The answers name them in the inbox and go on their customer profile."
          />
          {!isNew && <WebchatIdentity integration={integration} mode={identityVerification} onModeChange={setIdentityVerification} />}
          {!isNew && (
            <div className="copy-row copy-row-block">
              <span className="copy-label">Embed snippet</span>
              <pre className="code-box">{embedSnippet(integration.id)}</pre>
              <CopyButton text={embedSnippet(integration.id)} what="Embed snippet" />
            </div>
          )}
        </fieldset>
      )}

      <fieldset className="fieldset" data-testid="csat-settings">
        <legend>Satisfaction survey</legend>
        <Switch
          label="Ask for a rating when a conversation is closed"
          checked={csat.enabled}
          onChange={(enabled) => setCsat({ ...csat, enabled })}
          hint={isPlatform ? 'Sent as a message; a reply such as “5” or “4 thanks” is the answer.' : 'Shown in the chat widget: 1 to 5 and an optional comment.'}
        />
        <Switch
          label="Skip conversations the customer never replied in"
          checked={csat.skipWithoutCustomerReply}
          disabled={!csat.enabled}
          onChange={(skipWithoutCustomerReply) => setCsat({ ...csat, skipWithoutCustomerReply })}
          hint="No survey when the customer did not write again after the first answer (typically closed for inactivity)."
        />
      </fieldset>

      <Switch label="Active" checked={active} onChange={setActive} hint="Inactive integrations reject incoming messages." />

      {restored && <p className="notice notice-info">{t.integrations.draftRestored}</p>}
      <UnsavedChangesGuard when={dirty && !save.busy} guardRef={guard} />
      <InlineError error={save.error} />
      <div className="form-actions">
        {!isNew && (
          <Button variant="danger" className="push-left" onClick={() => deletion.ask(integration)}>
            Delete
          </Button>
        )}
        <Link to="/integrations" className="btn btn-ghost">
          Cancel
        </Link>
        <Button type="submit" variant="primary" busy={save.busy}>
          Save
        </Button>
      </div>

      {!isNew && (
        <ConfirmDialog
          {...deletion.dialog}
          title="Delete this integration?"
          message={
            <p>
              “{integration.name}” will stop receiving messages at once and its webhook URL will return 404. Conversations already received
              are kept.
            </p>
          }
          confirmLabel="Delete"
        />
      )}
    </form>
  );
}
