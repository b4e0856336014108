import { useState, type FormEvent } from 'react';
import { describeError } from '../api/client.js';
import { changeTeammateRole, inviteTeammate, listInvitations, listTeammates, removeTeammate, revokeInvitation, setOwnName } from '../api/endpoints.js';
import type { Invitation, Role, Teammate } from '../api/types.js';
import { useAuth } from '../auth.js';
import { CardSection } from '../components/CardSection.js';
import { useToast } from '../components/Toasts.js';
import { DataTable, RowDangerButton } from '../components/DataTable.js';
import { LoadMoreButton } from '../components/LoadMore.js';
import { ShownOnceDialog } from '../components/ShownOnceDialog.js';
import { Badge, Button, ConfirmDialog, EmptyState, ErrorState, InlineError, ListState, PageHeader, SelectField, Skeleton, TextField, Time } from '../components/ui.js';
import { useConfirmedDelete } from '../components/useConfirmedDelete.js';
import { useSubmit } from '../components/useSubmit.js';
import { usePaged } from '../lib/usePaged.js';
import { AutoAssignmentSettings, AvailabilityBadge, MyAvailability } from './TeamAssignment.js';
import './team.css';

const ROLE_LABEL: Record<Role, string> = { owner: 'Owner', admin: 'Admin', agent: 'Agent' };
const ROLE_HINT = 'Agents read and work conversations. Admins also manage integrations, LLM settings, API tokens, credits and the team. Owners can do everything.';

export const canManage = (role: Role | undefined) => role === 'owner' || role === 'admin';

export function TeamPage() {
  const { me } = useAuth();
  const myRole = me?.user.role;
  const manager = canManage(myRole);
  return (
    <>
      <PageHeader title="Team" description="The people who work your conversations, and their roles." />
      {myRole !== undefined && !manager && (
        <p className="notice notice-info" data-testid="team-read-only">
          <strong>Read only for your role.</strong> Owners and admins invite teammates, change roles and remove people; you can see who is on the team.
        </p>
      )}
      {manager && <InviteAndPending myRole={myRole!} />}
      <Teammates myId={me?.user.id} myRole={myRole} />
      {manager && <AutoAssignmentSettings />}
    </>
  );
}

function Teammates({ myId, myRole }: { myId: string | undefined; myRole: Role | undefined }) {
  const toast = useToast();
  const team = usePaged((cursor, signal) => listTeammates(cursor, { signal }), []);
  const removal = useConfirmedDelete(
    async (member: Teammate) => {
      await removeTeammate(member.id);
      team.setItems((list) => list?.filter((m) => m.id !== member.id));
      toast.success(`${member.name ?? member.email} was removed from the team`);
    },
    // Refused (already gone, the last owner…): asking again cannot work; show the team as it is now.
    { onRefused: () => team.reload() },
  );
  const manager = canManage(myRole);

  async function onRoleChange(member: Teammate, role: Role) {
    try {
      const updated = await changeTeammateRole(member.id, role);
      team.setItems((list) => list?.map((m) => (m.id === updated.id ? updated : m)));
      toast.success(`${member.name ?? member.email} is now ${ROLE_LABEL[role].toLowerCase()}`);
    } catch (error) {
      toast.error(describeError(error));
      team.reload();
    }
  }

  // An admin may not change owners or hand out ownership; the server refuses it too.
  const editable = (m: Teammate) => manager && !(myRole === 'admin' && m.role === 'owner');

  const mine = team.items?.find((m) => m.id === myId);
  return (
    <CardSection title="Teammates">
      <MyAvailability
        current={team.items?.find((m) => m.id === myId)?.availability}
        onChanged={(availability) => team.setItems((list) => list?.map((m) => (m.id === myId ? { ...m, availability } : m)))}
      />
      {mine && <OwnName current={mine.name} onSaved={(updated) => team.setItems((list) => list?.map((m) => (m.id === updated.id ? updated : m)))} />}
      {team.loading && !team.items ? (
        <Skeleton rows={3} label="Loading teammates…" />
      ) : team.error && !team.items ? (
        <ErrorState error={team.error} onRetry={team.reload} title="Could not load the team" />
      ) : (
        <DataTable cards columns={['Name', 'Email', 'Role', 'Availability', 'Joined']} actions footer={<LoadMoreButton list={team} />}>
          {team.items?.map((m) => (
            <tr key={m.id} data-testid="teammate-row" data-email={m.email} data-role={m.role}>
              <td className="wrap" data-label="Name">
                {m.name ?? <span className="muted">—</span>} {m.id === myId && <Badge tone="info">You</Badge>}
              </td>
              <td className="wrap" data-label="Email">
                {m.email}
              </td>
              <td data-label="Role">
                {editable(m) ? (
                  <select
                    className="input select input-sm"
                    aria-label={`Role of ${m.email}`}
                    value={m.role}
                    onChange={(event) => void onRoleChange(m, event.target.value as Role)}
                  >
                    {(myRole === 'owner' ? (['owner', 'admin', 'agent'] as const) : (['admin', 'agent'] as const)).map((r) => (
                      <option key={r} value={r}>
                        {ROLE_LABEL[r]}
                      </option>
                    ))}
                  </select>
                ) : (
                  <Badge tone={m.role === 'owner' ? 'accent' : 'neutral'}>{ROLE_LABEL[m.role]}</Badge>
                )}
              </td>
              <td className="nowrap" data-label="Availability">
                <AvailabilityBadge teammate={m} />
              </td>
              <td className="nowrap" data-label="Joined">
                <Time iso={m.joinedAt} />
              </td>
              <td className="actions">
                {/* Nobody removes themselves from here: the last owner could not, and an admin would lock themselves out. */}
                {editable(m) && m.id !== myId && (
                  <RowDangerButton onClick={() => removal.ask(m)} label={`Remove ${m.email}`}>
                    Remove
                  </RowDangerButton>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <ConfirmDialog
        {...removal.dialog}
        title="Remove this teammate?"
        message={
          <p>
            {removal.target?.name ?? removal.target?.email} ({removal.target?.email}) loses access at once: they are signed out everywhere and can no longer log in. You can
            invite them again later.
          </p>
        }
        confirmLabel="Remove"
      />
    </CardSection>
  );
}

/** The signed-in teammate's own name: an owner who just signed up has none yet (sign-up's body has no name). */
function OwnName({ current, onSaved }: { current: string | null; onSaved: (teammate: Teammate) => void }) {
  const toast = useToast();
  const [value, setValue] = useState<string | null>(null);
  const save = useSubmit();
  const shown = value ?? current ?? '';

  function onSave(event: FormEvent) {
    event.preventDefault();
    void save.run(async () => {
      const updated = await setOwnName(shown.trim());
      onSaved(updated);
      setValue(null);
      toast.success(`Your name is now ${updated.name}`);
    });
  }

  return (
    <>
      {current === null && <p className="notice notice-info small">Add your name: your teammates see it on conversations and here, instead of “—”.</p>}
      <form className="inline-form" onSubmit={onSave}>
        <TextField label="Your name" required maxLength={200} autoComplete="name" value={shown} onValueChange={setValue} />
        <Button type="submit" variant={current === null ? 'primary' : 'secondary'} busy={save.busy} disabled={!shown.trim() || shown.trim() === current}>
          Save name
        </Button>
      </form>
      <InlineError error={save.error} />
    </>
  );
}

function InviteAndPending({ myRole }: { myRole: Role }) {
  const toast = useToast();
  const pending = usePaged((cursor, signal) => listInvitations(cursor, { signal }), []);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('agent');
  const invite = useSubmit();
  const [created, setCreated] = useState<{ invitation: Invitation; invitationUrl: string; emailed: boolean } | null>(null);
  const revoke = useConfirmedDelete(async (invitation: Invitation) => {
    await revokeInvitation(invitation.id);
    pending.setItems((list) => list?.filter((i) => i.id !== invitation.id));
    toast.success(`Invitation for ${invitation.email} revoked`);
  });

  function onInvite(event: FormEvent) {
    event.preventDefault();
    if (!email.trim()) return;
    void invite.run(async () => {
      const result = await inviteTeammate(email.trim(), role);
      setCreated(result);
      setEmail('');
      pending.setItems((list) => [result.invitation, ...(list ?? [])]);
    });
  }

  return (
    <CardSection title="Invite a teammate">
      <p className="muted small">{ROLE_HINT}</p>
      <form className="inline-form" onSubmit={onInvite}>
        <TextField label="Email" type="email" required maxLength={254} value={email} onValueChange={setEmail} placeholder="name@example.com" />
        <SelectField label="Role" value={role} onValueChange={(v) => setRole(v as Role)}>
          <option value="agent">Agent</option>
          <option value="admin">Admin</option>
          {myRole === 'owner' && <option value="owner">Owner</option>}
        </SelectField>
        <Button type="submit" variant="primary" busy={invite.busy} disabled={!email.trim()}>
          Invite
        </Button>
      </form>
      <InlineError error={invite.error} />

      <h3 className="section-subtitle">Pending invitations</h3>
      <ListState list={pending} items={pending.items} loadingLabel="Loading invitations…" skeletonRows={2} errorTitle="Could not load the invitations" empty={<EmptyState title="No pending invitations" />}>
        <DataTable cards columns={['Email', 'Role', 'Expires']} actions footer={<LoadMoreButton list={pending} />}>
          {pending.items?.map((i) => (
            <tr key={i.id} data-testid="invitation-row" data-email={i.email}>
              <td className="wrap" data-label="Email">
                {i.email}
              </td>
              <td data-label="Role">{ROLE_LABEL[i.role]}</td>
              <td className="nowrap" data-label="Expires">
                {i.expired ? <Badge tone="warning">Expired</Badge> : <Time iso={i.expiresAt} />}
              </td>
              <td className="actions">
                <RowDangerButton onClick={() => revoke.ask(i)} label={`Revoke invitation for ${i.email}`}>
                  Revoke
                </RowDangerButton>
              </td>
            </tr>
          ))}
        </DataTable>
      </ListState>

      <ShownOnceDialog
        value={created?.invitationUrl ?? null}
        onClose={() => setCreated(null)}
        title="Invitation link"
        warning={
          <>
            {created?.emailed ? 'We emailed this link to ' : 'Send this link to '}
            {created?.invitation.email}. It is shown only now, works once, and expires <Time iso={created?.invitation.expiresAt} />.
          </>
        }
        what="Invitation link"
        valueTestId="invitation-link"
      />

      <ConfirmDialog {...revoke.dialog} title="Revoke this invitation?" message={<p>The link sent to {revoke.target?.email} stops working at once.</p>} confirmLabel="Revoke" />
    </CardSection>
  );
}
