import { useId, useState, type FormEvent } from 'react';
import { createApiToken, getCompanyTimezone, listApiTokens, revokeApiToken, setCompanyTimezone } from '../api/endpoints.js';
import type { ApiToken } from '../api/types.js';
import { useAuth } from '../auth.js';
import { CardSection } from '../components/CardSection.js';
import { useToast } from '../components/Toasts.js';
import { DataTable, RowDangerButton } from '../components/DataTable.js';
import { ShownOnceDialog } from '../components/ShownOnceDialog.js';
import { Badge, Button, ConfirmDialog, EmptyState, ErrorState, InlineError, ListState, PageHeader, Skeleton, TextField, Time } from '../components/ui.js';
import { useConfirmedDelete } from '../components/useConfirmedDelete.js';
import { useSubmit } from '../components/useSubmit.js';
import { BusinessHoursSettings } from './BusinessHours.js';
import { NoteSharingSettings } from '../components/NoteSharingSettings.js';
import { RetentionSettings } from '../components/RetentionSettings.js';
import { SupportTeamsSettings } from '../components/SupportTeamsSettings.js';
import { SlaPolicySettings } from '../components/SlaPolicySettings.js';
import { t } from '../lib/messages.js';
import { useAsync } from '../lib/useAsync.js';

export function SettingsPage() {
  const { me, meError, reloadMe } = useAuth();
  return (
    <>
      <PageHeader title="Settings" description="Your company and the API tokens for server-to-server access." />
      <CardSection title="Company">
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
      </CardSection>
      <CompanyTimezone />
      <BusinessHoursSettings />
      <SupportTeamsSettings />
      <SlaPolicySettings />
      <NoteSharingSettings />
      <RetentionSettings />
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
  const save = useSubmit();
  const listId = useId();
  const shown = value ?? current.data ?? '';

  function onSave(event: FormEvent) {
    event.preventDefault();
    void save.run(async () => {
      const saved = await setCompanyTimezone(shown.trim());
      current.setData(saved);
      setValue(null);
      toast.success(`Timezone set to ${saved}`);
    });
  }

  return (
    <CardSection title="Timezone">
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
          <Button type="submit" variant="primary" busy={save.busy} disabled={!shown.trim() || shown.trim() === current.data}>
            Save timezone
          </Button>
        </form>
      )}
      <InlineError error={save.error} />
    </CardSection>
  );
}

function ApiTokens() {
  const toast = useToast();
  const tokens = useAsync((signal) => listApiTokens({ signal }), []);
  const [name, setName] = useState('');
  const create = useSubmit();
  const [created, setCreated] = useState<{ token: string; apiToken: ApiToken } | null>(null);
  const revoke = useConfirmedDelete(async (token: ApiToken) => {
    await revokeApiToken(token.id);
    tokens.setData((list) => list?.filter((t) => t.id !== token.id));
    toast.success(`Token “${token.name}” revoked`);
  });

  function onCreate(event: FormEvent) {
    event.preventDefault();
    const value = name.trim();
    if (!value) return;
    void create.run(async () => {
      const result = await createApiToken(value);
      setCreated(result);
      setName('');
      tokens.setData((list) => [result.apiToken, ...(list ?? []).filter((t) => t.id !== result.apiToken.id)]);
    });
  }

  return (
    <CardSection title="API tokens">
      <p className="muted small">
        Use a token as <code className="code-inline">Authorization: Bearer &lt;token&gt;</code> from your own servers and scripts. It acts for this
        company only, with no more than its creator’s current role (at most admin), and stops working when its creator leaves the team.
      </p>
      <form className="inline-form" onSubmit={onCreate}>
        <TextField label="Token name" required maxLength={100} value={name} onValueChange={setName} placeholder="e.g. CRM sync" />
        <Button type="submit" variant="primary" busy={create.busy} disabled={!name.trim()}>
          Create token
        </Button>
      </form>
      <InlineError error={create.error} />

      <ListState list={tokens} items={tokens.data} loadingLabel="Loading tokens…" skeletonRows={3} errorTitle="Could not load the API tokens" empty={<EmptyState title="No API tokens yet — create one to call the API from your own systems" />}>
        <DataTable cards columns={[t.settings.name, t.settings.prefix, t.settings.createdBy, t.settings.created, t.settings.lastUsed]} actions>
          {tokens.data?.map((token) => (
            <tr key={token.id} data-testid="api-token-row" data-token-id={token.id}>
              <td className="wrap" data-label={t.settings.name}>
                {token.name}
              </td>
              <td data-label={t.settings.prefix}>
                <code className="code-inline">{token.prefix}…</code>
              </td>
              <td className="wrap" data-label={t.settings.createdBy} data-testid="api-token-creator">
                <Creator createdBy={token.createdBy} />
              </td>
              <td className="nowrap" data-label={t.settings.created}>
                <Time iso={token.createdAt} />
              </td>
              <td className="nowrap" data-label={t.settings.lastUsed}>
                {token.lastUsedAt ? <Time iso={token.lastUsedAt} /> : <span className="muted">{t.settings.never}</span>}
              </td>
              <td className="actions">
                <RowDangerButton onClick={() => revoke.ask(token)}>Revoke</RowDangerButton>
              </td>
            </tr>
          ))}
        </DataTable>
      </ListState>

      <ShownOnceDialog
        value={created?.token ?? null}
        onClose={() => setCreated(null)}
        title="Your new API token"
        warning="Copy this token now. It won’t be shown again — if you lose it, revoke it and create a new one."
        what="API token"
        valueTestId="new-token-value"
      >
        <p className="muted small">Name: {created?.apiToken.name}</p>
      </ShownOnceDialog>

      <ConfirmDialog
        {...revoke.dialog}
        title="Revoke this token?"
        message={
          <p>
            “{revoke.target?.name}” (<code className="code-inline">{revoke.target?.prefix}…</code>) stops working at once. Anything using it will get 401
            errors.
          </p>
        }
        confirmLabel="Revoke"
      />
    </CardSection>
  );
}

/** Who created a token, and what it may do when that is less than an admin's (its creator is an agent now). */
function Creator({ createdBy }: { createdBy: ApiToken['createdBy'] }) {
  if (!createdBy) return <span className="muted">{t.settings.unknownCreator}</span>;
  return (
    <>
      {createdBy.name ?? createdBy.email ?? t.settings.unknownCreator}
      {createdBy.role === 'agent' && <span className="muted small"> · {t.settings.actsAs('agent')}</span>}
    </>
  );
}
