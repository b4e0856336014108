import { useState, type FormEvent } from 'react';
import { listIntegrations } from '../api/endpoints.js';
import { createSupportTeam, deleteSupportTeam, listSupportTeams, setTeamRoute, updateSupportTeam, type SupportTeam } from '../api/supportTeams.js';
import { teammateName, useTeam } from '../lib/team.js';
import { useAsync } from '../lib/useAsync.js';
import { CardSection } from './CardSection.js';
import { useToast } from './Toasts.js';
import { Button, ConfirmDialog, EmptyState, ErrorState, InlineError, SelectField, Skeleton, TextField } from './ui.js';
import { useConfirmedDelete } from './useConfirmedDelete.js';
import './supportTeams.css';
import { useSubmit } from './useSubmit.js';

/**
 * Settings → Teams: support teams (who takes which conversations), their members and capacity, and the routing of
 * each integration's handoffs to a team. Owners and admins (the Settings page is theirs).
 */
export function SupportTeamsSettings() {
  const toast = useToast();
  const teams = useAsync((signal) => listSupportTeams({ signal }), []);
  const integrations = useAsync((signal) => listIntegrations({ signal }), []);
  const [name, setName] = useState('');
  const create = useSubmit();
  const routeSave = useSubmit();
  const remove = useConfirmedDelete(async (team: SupportTeam) => {
    await deleteSupportTeam(team.id);
    teams.reload();
    toast.success(`Team “${team.name}” deleted`);
  });

  function onCreate(event: FormEvent) {
    event.preventDefault();
    const value = name.trim();
    if (!value) return;
    void create.run(async () => {
      const team = await createSupportTeam({ name: value });
      setName('');
      teams.setData((d) => (d ? { ...d, teams: [...d.teams, team].sort((a, b) => a.name.localeCompare(b.name)) } : d));
      toast.success(`Team “${team.name}” created: add its members below`);
    });
  }

  const routeOf = (integrationId: number) => teams.data?.routes.find((r) => r.integrationId === integrationId)?.teamId ?? '';
  function onRoute(integrationId: number, teamId: string) {
    void routeSave.run(async () => {
      const routes = await setTeamRoute(integrationId, teamId || null);
      teams.setData((d) => (d ? { ...d, routes } : d));
      toast.success(teamId ? 'Handoffs from this integration now go to the team' : 'Handoffs from this integration go to everyone');
    });
  }

  return (
    <CardSection title="Teams">
      <p className="muted small">
        A team is a group of teammates who take one kind of conversation. Route an integration to a team: its handed-off conversations go to that team, and
        automatic assignment picks among the team’s members only.
      </p>
      <form className="inline-form" onSubmit={onCreate}>
        <TextField label="New team" required maxLength={80} value={name} onValueChange={setName} placeholder="e.g. Billing" data-testid="team-name-input" />
        <Button type="submit" variant="primary" busy={create.busy} disabled={!name.trim()}>
          Create team
        </Button>
      </form>
      <InlineError error={create.error} />

      {teams.error && !teams.data ? (
        <ErrorState error={teams.error} onRetry={teams.reload} title="Could not load the teams" />
      ) : !teams.data ? (
        <Skeleton rows={3} label="Loading teams…" />
      ) : teams.data.teams.length === 0 ? (
        <EmptyState title="No teams yet — every teammate takes every conversation" />
      ) : (
        <ul className="team-list" aria-label="Teams">
          {teams.data.teams.map((team) => (
            <TeamEditor
              key={`${team.id}:${team.updatedAt}`}
              team={team}
              onSaved={(saved) => teams.setData((d) => (d ? { ...d, teams: d.teams.map((t) => (t.id === saved.id ? saved : t)) } : d))}
              onDelete={() => remove.ask(team)}
            />
          ))}
        </ul>
      )}

      <h3 className="card-subtitle">Routing</h3>
      {integrations.data && integrations.data.length > 0 ? (
        <div className="team-routes">
          {integrations.data.map((integration) => (
            <SelectField
              key={integration.id}
              label={integration.name}
              value={routeOf(integration.id)}
              onValueChange={(v) => onRoute(integration.id, v)}
              disabled={!teams.data || routeSave.busy}
              data-testid={`route-${integration.id}`}
            >
              <option value="">Everyone (no team)</option>
              {teams.data?.teams.map((team) => (
                <option key={team.id} value={team.id}>
                  {team.name}
                </option>
              ))}
            </SelectField>
          ))}
        </div>
      ) : (
        <p className="muted small">No integrations yet: routing applies per integration.</p>
      )}
      <InlineError error={routeSave.error} />

      <ConfirmDialog
        {...remove.dialog}
        title="Delete this team?"
        message={<p>“{remove.target?.name}” and its routes go; its waiting conversations go back to everyone’s queue.</p>}
        confirmLabel="Delete"
      />
    </CardSection>
  );
}

function TeamEditor({ team, onSaved, onDelete }: { team: SupportTeam; onSaved: (team: SupportTeam) => void; onDelete: () => void }) {
  const toast = useToast();
  const { teammates } = useTeam();
  const [members, setMembers] = useState(() => new Set(team.memberIds));
  const [capacity, setCapacity] = useState(team.capacity === null ? '' : String(team.capacity));
  const save = useSubmit();
  const changed = members.size !== team.memberIds.length || team.memberIds.some((id) => !members.has(id)) || capacity !== (team.capacity === null ? '' : String(team.capacity));

  function onSave(event: FormEvent) {
    event.preventDefault();
    void save.run(async () => {
      const saved = await updateSupportTeam(team.id, { memberIds: [...members], capacity: capacity.trim() ? Number(capacity) : null });
      onSaved(saved);
      toast.success(`Team “${saved.name}” saved`);
    });
  }

  return (
    <li className="team-item" data-testid="team-row" data-team-id={team.id}>
      <form onSubmit={onSave}>
        <div className="team-head">
          <strong>{team.name}</strong>
          <span className="muted small">
            {team.memberIds.length} member{team.memberIds.length === 1 ? '' : 's'}
          </span>
        </div>
        <fieldset className="team-members">
          <legend className="small">Members</legend>
          {teammates ? (
            teammates.map((t) => (
              <label key={t.id} className="team-member">
                <input
                  type="checkbox"
                  checked={members.has(t.id)}
                  onChange={(e) =>
                    setMembers((set) => {
                      const next = new Set(set);
                      if (e.target.checked) next.add(t.id);
                      else next.delete(t.id);
                      return next;
                    })
                  }
                />{' '}
                {teammateName(t)}
              </label>
            ))
          ) : (
            <Skeleton rows={1} label="Loading teammates…" />
          )}
        </fieldset>
        <div className="inline-form">
          <TextField label="Capacity per member" hint="Empty: the company’s" inputMode="numeric" pattern="[0-9]*" maxLength={3} value={capacity} onValueChange={setCapacity} />
          <Button type="submit" variant="primary" busy={save.busy} disabled={!changed}>
            Save team
          </Button>
          <Button type="button" variant="danger" onClick={onDelete}>
            Delete
          </Button>
        </div>
        <InlineError error={save.error} />
      </form>
    </li>
  );
}
