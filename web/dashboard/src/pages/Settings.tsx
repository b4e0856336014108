import { useId, useState, type FormEvent } from 'react';
import { describeError } from '../api/client.js';
import { createApiToken, getCompanyTimezone, listApiTokens, revokeApiToken, setCompanyTimezone } from '../api/endpoints.js';
import type { ApiToken } from '../api/types.js';
import { useAuth } from '../auth.js';
import { useToast } from '../components/Toasts.js';
import { Badge, Button, ConfirmDialog, CopyButton, EmptyState, ErrorState, InlineError, ListState, Modal, PageHeader, Skeleton, TextField, Time } from '../components/ui.js';
import { t } from '../lib/messages.js';
import { useAsync } from '../lib/useAsync.js';

export function SettingsPage() {
  const { me, meError, reloadMe } = useAuth();
  return (
    <>
      <PageHeader title="Settings" description="Your company and the API tokens for server-to-server access." />
      <section className="card" aria-labelledby="company-title">
        <h2 className="section-title" id="company-title">
          Company
        </h2>
        {me ? (
          <dl className="kv">
            <dt>Company name</dt>
            <dd data-testid="settings-company-name">{me.company.companyName}</dd>
            <dt>Company ID</dt>
            <dd>
              <code className="code-inline">{me.company.companyId}</code>
            </dd>
            <dt>Created</dt>
            <dd>
              <Time iso={me.company.createdAt} />
            </dd>
            <dt>Signed in as</dt>
            <dd>
              {me.user.email} {me.user.isSuperadmin && <Badge tone="accent">Superadmin</Badge>}
            </dd>
          </dl>
        ) : meError ? (
          <ErrorState error={meError} onRetry={reloadMe} title="Could not load the company" />
        ) : (
          <Skeleton rows={3} />
        )}
      </section>
      <CompanyTimezone />
      <ApiTokens />
    </>
  );
}

/** Every IANA zone the browser knows (for suggestions only: the server validates the name). */
const TIMEZONES: string[] = (() => {
  try {
    return ['UTC', ...(Intl as unknown as { supportedValuesOf(k: string): string[] }).supportedValuesOf('timeZone').filter((z) => z !== 'UTC')];
  } catch {
    return ['UTC'];
  }
})();

function CompanyTimezone() {
  const toast = useToast();
  const current = useAsync((signal) => getCompanyTimezone({ signal }), []);
  const [value, setValue] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const listId = useId();
  const shown = value ?? current.data ?? '';

  async function onSave(event: FormEvent) {
    event.preventDefault();
    setSaving(true);
    setError(null);
    try {
      const saved = await setCompanyTimezone(shown.trim());
      current.setData(saved);
      setValue(null);
      toast.success(`Timezone set to ${saved}`);
    } catch (err) {
      setError(err);
    } finally {
      setSaving(false);
    }
  }

  return (
    <section className="card" aria-labelledby="timezone-title">
      <h2 className="section-title" id="timezone-title">
        Timezone
      </h2>
      <p className="muted small">
        Analytics count each day in this timezone. A change applies from now on: days already counted keep the timezone they were counted in.
      </p>
      {current.error && current.data === undefined ? (
        <ErrorState error={current.error} onRetry={current.reload} title="Could not load the timezone" />
      ) : (
        <form className="inline-form" onSubmit={onSave}>
          <TextField label="IANA timezone" required maxLength={64} value={shown} onValueChange={setValue} list={listId} placeholder="e.g. Europe/Berlin" data-testid="timezone-input" />
          <datalist id={listId}>
            {TIMEZONES.map((z) => (
              <option key={z} value={z} />
            ))}
          </datalist>
          <Button type="submit" variant="primary" busy={saving} disabled={!shown.trim() || shown.trim() === current.data}>
            Save timezone
          </Button>
        </form>
      )}
      <InlineError error={error} />
    </section>
  );
}

function ApiTokens() {
  const toast = useToast();
  const tokens = useAsync((signal) => listApiTokens({ signal }), []);
  const [name, setName] = useState('');
  const [creating, setCreating] = useState(false);
  const [createError, setCreateError] = useState<unknown>(null);
  const [created, setCreated] = useState<{ token: string; apiToken: ApiToken } | null>(null);
  const [toRevoke, setToRevoke] = useState<ApiToken | null>(null);
  const [revoking, setRevoking] = useState(false);
  const tokenValueId = useId();

  async function onCreate(event: FormEvent) {
    event.preventDefault();
    const value = name.trim();
    if (!value) return;
    setCreating(true);
    setCreateError(null);
    try {
      const result = await createApiToken(value);
      setCreated(result);
      setName('');
      tokens.setData((list) => [result.apiToken, ...(list ?? []).filter((t) => t.id !== result.apiToken.id)]);
    } catch (error) {
      setCreateError(error);
    } finally {
      setCreating(false);
    }
  }

  async function onRevoke() {
    if (!toRevoke) return;
    setRevoking(true);
    try {
      await revokeApiToken(toRevoke.id);
      tokens.setData((list) => list?.filter((t) => t.id !== toRevoke.id));
      toast.success(`Token “${toRevoke.name}” revoked`);
      setToRevoke(null);
    } catch (error) {
      toast.error(describeError(error));
    } finally {
      setRevoking(false);
    }
  }

  return (
    <section className="card" aria-labelledby="tokens-title">
      <h2 className="section-title" id="tokens-title">
        API tokens
      </h2>
      <p className="muted small">
        Use a token as <code className="code-inline">Authorization: Bearer &lt;token&gt;</code> from your own servers and scripts. It acts for this
        company only.
      </p>
      <form className="inline-form" onSubmit={onCreate}>
        <TextField label="Token name" required maxLength={100} value={name} onValueChange={setName} placeholder="e.g. CRM sync" />
        <Button type="submit" variant="primary" busy={creating} disabled={!name.trim()}>
          Create token
        </Button>
      </form>
      <InlineError error={createError} />

      <ListState list={tokens} items={tokens.data} loadingLabel="Loading tokens…" skeletonRows={3} errorTitle="Could not load the API tokens" empty={<EmptyState title="No API tokens yet — create one to call the API from your own systems" />}>
        <div className="table-wrap">
          <table className="table table-cards">
            <thead>
              <tr>
                <th scope="col">{t.settings.name}</th>
                <th scope="col">{t.settings.prefix}</th>
                <th scope="col">{t.settings.created}</th>
                <th scope="col">{t.settings.lastUsed}</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {tokens.data?.map((token) => (
                <tr key={token.id} data-testid="api-token-row" data-token-id={token.id}>
                  <td className="wrap" data-label={t.settings.name}>
                    {token.name}
                  </td>
                  <td data-label={t.settings.prefix}>
                    <code className="code-inline">{token.prefix}…</code>
                  </td>
                  <td className="nowrap" data-label={t.settings.created}>
                    <Time iso={token.createdAt} />
                  </td>
                  <td className="nowrap" data-label={t.settings.lastUsed}>
                    {token.lastUsedAt ? <Time iso={token.lastUsedAt} /> : <span className="muted">{t.settings.never}</span>}
                  </td>
                  <td className="actions">
                    <Button size="sm" variant="ghost" className="danger-text" onClick={() => setToRevoke(token)}>
                      Revoke
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </ListState>

      <Modal
        open={created !== null}
        onClose={() => setCreated(null)}
        title="Your new API token"
        describedBy={`${tokenValueId}-warning`}
        footer={
          <Button variant="primary" onClick={() => setCreated(null)}>
            Done
          </Button>
        }
      >
        <p className="notice notice-warning" id={`${tokenValueId}-warning`}>
          Copy this token now. It won’t be shown again — if you lose it, revoke it and create a new one.
        </p>
        <div className="copy-row">
          <code className="code-box token-value" id={tokenValueId} data-testid="new-token-value">
            {created?.token}
          </code>
          {created && <CopyButton text={created.token} describedBy={tokenValueId} what="API token" size="md" />}
        </div>
        <p className="muted small">Name: {created?.apiToken.name}</p>
      </Modal>

      <ConfirmDialog
        open={toRevoke !== null}
        title="Revoke this token?"
        message={
          <p>
            “{toRevoke?.name}” (<code className="code-inline">{toRevoke?.prefix}…</code>) stops working at once. Anything using it will get 401
            errors.
          </p>
        }
        confirmLabel="Revoke"
        busy={revoking}
        onConfirm={onRevoke}
        onCancel={() => setToRevoke(null)}
      />
    </section>
  );
}
