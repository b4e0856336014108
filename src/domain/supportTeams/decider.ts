import type { Decider } from '../decider.js';
import { DomainError } from '../errors.js';
import { SUPPORT_TEAM_LIMITS, supportTeamFields, type SupportTeamEvent, type SupportTeamFields } from './events.js';
import { evolveSupportTeams, initialSupportTeamsState, type SupportTeamsState } from './state.js';

/**
 * `teammateIds`: the members among the given member ids who are teammates of the company now (the use case reads
 * the company's roster); anyone else is refused, so a team never lists a stranger.
 */
export type SupportTeamCommand =
  | ({ type: 'CreateSupportTeam'; companyId: string; teamId: string; teammateIds: string[]; by: string; now: string } & SupportTeamFields)
  | { type: 'UpdateSupportTeam'; companyId: string; teamId: string; changes: Partial<SupportTeamFields>; teammateIds: string[]; by: string; now: string }
  | { type: 'DeleteSupportTeam'; companyId: string; teamId: string; by: string; now: string }
  | { type: 'SetTeamRoute'; companyId: string; integrationId: number; teamId: string | null; by: string; now: string };

const notFound = () => new DomainError('NOT_FOUND', 'Team not found');
const duplicate = (name: string) => new DomainError('CONFLICT', `name: another team is called "${name}"`);

/**
 * `formerMembers`: the team's members before this change. One of them who has left the company since is dropped
 * quietly (the client sent back the list it had), while a new member must be a teammate now.
 */
function check(fields: Partial<SupportTeamFields>, teammateIds: string[], formerMembers: string[] = []): Partial<SupportTeamFields> {
  const parsed = supportTeamFields.partial().safeParse(fields);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new DomainError('VALIDATION_ERROR', `${issue?.path.map(String).join('.') || 'team'}: ${issue?.message ?? 'invalid'}`);
  }
  const out = { ...parsed.data };
  if (out.memberIds) {
    const known = new Set(teammateIds);
    const former = new Set(formerMembers);
    out.memberIds = [...new Set(out.memberIds)].filter((id) => known.has(id) || !former.has(id));
    const stranger = out.memberIds.find((id) => !known.has(id));
    if (stranger) throw new DomainError('VALIDATION_ERROR', `memberIds: ${stranger} is not a teammate of this company`);
  }
  return out;
}

const sameMembers = (a: string[], b: string[]) => a.length === b.length && a.every((id, i) => id === b[i]);

export const supportTeamsDecider: Decider<SupportTeamCommand, SupportTeamEvent, SupportTeamsState> = {
  initialState: initialSupportTeamsState,
  evolve: evolveSupportTeams,
  decide(command, state) {
    if (state.companyId !== null && state.companyId !== command.companyId) throw notFound();
    const nameTaken = (name: string, except?: string) => [...state.teams.values()].some((t) => t.name.toLowerCase() === name.toLowerCase() && t.id !== except);
    switch (command.type) {
      case 'CreateSupportTeam': {
        const fields = check({ name: command.name, memberIds: command.memberIds, capacity: command.capacity }, command.teammateIds) as SupportTeamFields;
        if (nameTaken(fields.name)) throw duplicate(fields.name);
        if (state.teams.size >= SUPPORT_TEAM_LIMITS.teams) {
          throw new DomainError('QUOTA_EXCEEDED', `A company may keep at most ${SUPPORT_TEAM_LIMITS.teams} teams; delete one first`);
        }
        return [{ type: 'SupportTeamCreated', data: { teamId: command.teamId, companyId: command.companyId, ...fields, by: command.by, at: command.now } }];
      }
      case 'UpdateSupportTeam': {
        const known = state.teams.get(command.teamId);
        if (!known) throw notFound();
        const checked = check(command.changes, command.teammateIds, known.memberIds);
        // Only what differs is recorded; an update that changes nothing records nothing.
        const changes: Partial<SupportTeamFields> = {};
        if (checked.name !== undefined && checked.name !== known.name) changes.name = checked.name;
        if (checked.memberIds !== undefined && !sameMembers(checked.memberIds, known.memberIds)) changes.memberIds = checked.memberIds;
        if (checked.capacity !== undefined && checked.capacity !== known.capacity) changes.capacity = checked.capacity;
        if (changes.name !== undefined && nameTaken(changes.name, known.id)) throw duplicate(changes.name);
        if (Object.keys(changes).length === 0) return [];
        return [{ type: 'SupportTeamUpdated', data: { teamId: known.id, changes, by: command.by, at: command.now } }];
      }
      case 'DeleteSupportTeam':
        if (!state.teams.has(command.teamId)) throw notFound();
        return [{ type: 'SupportTeamDeleted', data: { teamId: command.teamId, by: command.by, at: command.now } }];
      case 'SetTeamRoute': {
        if (command.teamId !== null && !state.teams.has(command.teamId)) throw notFound();
        if ((state.routes.get(command.integrationId) ?? null) === command.teamId) return [];
        return [{ type: 'TeamRouteSet', data: { integrationId: command.integrationId, teamId: command.teamId, by: command.by, at: command.now } }];
      }
    }
  },
};

const PREFIX = 'supportteams-';
export const supportTeamsStream = (companyId: string) => `${PREFIX}${companyId}`;
export const companyIdOfSupportTeamsStream = (stream: string) => stream.slice(PREFIX.length);
