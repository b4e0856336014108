import { useId, useState, type FormEvent } from 'react';
import { describeError } from '../api/client.js';
import { changeTeammateRole, inviteTeammate, listInvitations, listTeammates, removeTeammate, revokeInvitation } from '../api/endpoints.js';
import type { Invitation, Role, Teammate } from '../api/types.js';
import { useAuth } from '../auth.js';
import { useToast } from '../components/Toasts.js';
import { Badge, Button, ConfirmDialog, CopyButton, EmptyState, ErrorState, InlineError, ListState, Modal, PageHeader, SelectField, Skeleton, TextField, Time } from '../components/ui.js';
import { usePaged } from '../lib/usePaged.js';
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
      {manager && <InviteAndPending myRole={myRole!} />}
      <Teammates myId={me?.user.id} myRole={myRole} />
    </>
  );
}

function Teammates({ myId, myRole }: { myId: string | undefined; myRole: Role | undefined }) {
  const toast = useToast();
  const team = usePaged((cursor, signal) => listTeammates(cursor, { signal }), []);
  const [toRemove, setToRemove] = useState<Teammate | null>(null);
  const [removing, setRemoving] = useState(false);
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

  async function onRemove() {
    if (!toRemove) return;
    setRemoving(true);
    try {
      await removeTeammate(toRemove.id);
      team.setItems((list) => list?.filter((m) => m.id !== toRemove.id));
      toast.success(`${toRemove.name ?? toRemove.email} was removed from the team`);
      setToRemove(null);
    } catch (error) {
      toast.error(describeError(error));
    } finally {
      setRemoving(false);
    }
  }

  // An admin may not change owners or hand out ownership; the server refuses it too.
  const editable = (m: Teammate) => manager && !(myRole === 'admin' && m.role === 'owner');

  return (
    <section className="card" aria-labelledby="teammates-title">
      <h2 className="section-title" id="teammates-title">
        Teammates
      </h2>
      {team.loading && !team.items ? (
        <Skeleton rows={3} label="Loading teammates…" />
      ) : team.error && !team.items ? (
        <ErrorState error={team.error} onRetry={team.reload} title="Could not load the team" />
      ) : (
        <div className="table-wrap">
          <table className="table table-cards">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Joined</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
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
                  <td className="nowrap" data-label="Joined">
                    <Time iso={m.joinedAt} />
                  </td>
                  <td className="actions">
                    {editable(m) && (
                      <Button size="sm" variant="ghost" className="danger-text" onClick={() => setToRemove(m)} aria-label={`Remove ${m.email}`}>
                        Remove
                      </Button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {team.nextCursor && (
            <Button onClick={team.loadMore} busy={team.loadingMore}>
              Load more
            </Button>
          )}
        </div>
      )}
      <ConfirmDialog
        open={toRemove !== null}
        title="Remove this teammate?"
        message={
          <p>
            {toRemove?.name ?? toRemove?.email} ({toRemove?.email}) loses access at once: they are signed out everywhere and can no longer log in. You can
            invite them again later.
          </p>
        }
        confirmLabel="Remove"
        busy={removing}
        onConfirm={onRemove}
        onCancel={() => setToRemove(null)}
      />
    </section>
  );
}

function InviteAndPending({ myRole }: { myRole: Role }) {
  const toast = useToast();
  const pending = usePaged((cursor, signal) => listInvitations(cursor, { signal }), []);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('agent');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [created, setCreated] = useState<{ invitation: Invitation; invitationUrl: string; emailed: boolean } | null>(null);
  const [toRevoke, setToRevoke] = useState<Invitation | null>(null);
  const [revoking, setRevoking] = useState(false);
  const linkId = useId();

  async function onInvite(event: FormEvent) {
    event.preventDefault();
    if (!email.trim()) return;
    setBusy(true);
    setError(null);
    try {
      const result = await inviteTeammate(email.trim(), role);
      setCreated(result);
      setEmail('');
      pending.setItems((list) => [result.invitation, ...(list ?? [])]);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  async function onRevoke() {
    if (!toRevoke) return;
    setRevoking(true);
    try {
      await revokeInvitation(toRevoke.id);
      pending.setItems((list) => list?.filter((i) => i.id !== toRevoke.id));
      toast.success(`Invitation for ${toRevoke.email} revoked`);
      setToRevoke(null);
    } catch (err) {
      toast.error(describeError(err));
    } finally {
      setRevoking(false);
    }
  }

  return (
    <section className="card" aria-labelledby="invite-title">
      <h2 className="section-title" id="invite-title">
        Invite a teammate
      </h2>
      <p className="muted small">{ROLE_HINT}</p>
      <form className="inline-form" onSubmit={onInvite}>
        <TextField label="Email" type="email" required maxLength={254} value={email} onValueChange={setEmail} placeholder="name@example.com" />
        <SelectField label="Role" value={role} onValueChange={(v) => setRole(v as Role)}>
          <option value="agent">Agent</option>
          <option value="admin">Admin</option>
          {myRole === 'owner' && <option value="owner">Owner</option>}
        </SelectField>
        <Button type="submit" variant="primary" busy={busy} disabled={!email.trim()}>
          Invite
        </Button>
      </form>
      <InlineError error={error} />

      <h3 className="section-subtitle">Pending invitations</h3>
      <ListState list={pending} items={pending.items} loadingLabel="Loading invitations…" skeletonRows={2} errorTitle="Could not load the invitations" empty={<EmptyState title="No pending invitations" />}>
        <div className="table-wrap">
          <table className="table table-cards">
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
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
                    <Button size="sm" variant="ghost" className="danger-text" onClick={() => setToRevoke(i)} aria-label={`Revoke invitation for ${i.email}`}>
                      Revoke
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {pending.nextCursor && (
            <Button onClick={pending.loadMore} busy={pending.loadingMore}>
              Load more
            </Button>
          )}
        </div>
      </ListState>

      <Modal
        open={created !== null}
        onClose={() => setCreated(null)}
        title="Invitation link"
        describedBy={`${linkId}-warning`}
        footer={
          <Button variant="primary" onClick={() => setCreated(null)}>
            Done
          </Button>
        }
      >
        <p className="notice notice-warning" id={`${linkId}-warning`}>
          {created?.emailed ? 'We emailed this link to ' : 'Send this link to '}
          {created?.invitation.email}. It is shown only now, works once, and expires <Time iso={created?.invitation.expiresAt} />.
        </p>
        <div className="copy-row">
          <code className="code-box token-value" id={linkId} data-testid="invitation-link">
            {created?.invitationUrl}
          </code>
          {created && <CopyButton text={created.invitationUrl} describedBy={linkId} what="Invitation link" size="md" />}
        </div>
      </Modal>

      <ConfirmDialog
        open={toRevoke !== null}
        title="Revoke this invitation?"
        message={<p>The link sent to {toRevoke?.email} stops working at once.</p>}
        confirmLabel="Revoke"
        busy={revoking}
        onConfirm={onRevoke}
        onCancel={() => setToRevoke(null)}
      />
    </section>
  );
}
