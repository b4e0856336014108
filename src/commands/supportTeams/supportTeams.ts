import { randomUUID } from 'node:crypto';
import { supportTeamsDecider, supportTeamsStream } from '../../domain/supportTeams/decider.js';
import type { SupportTeamFields } from '../../domain/supportTeams/events.js';
import { DomainError } from '../../domain/errors.js';
import { memberRole } from '../accounts/membership.js';
import type { CommandDeps } from '../deps.js';
import { handleCommand } from '../handleCommand.js';
import { loadCompanyIntegration } from '../integrations/streamReads.js';

/** Create, update and delete a company's support teams and set its routes (one `supportteams-<companyId>` stream). */

type Actor = { companyId: string; userId: string };
const metadataOf = (input: Actor) => ({ companyId: input.companyId, actor: `user:${input.userId}` });
const now = (deps: CommandDeps) => deps.clock.now().toISOString();

/** Which of the given ids are teammates of the company now (read from the roster's stream, a handful per edit). */
async function teammatesAmong(deps: CommandDeps, companyId: string, ids: string[] | undefined): Promise<string[]> {
  if (!ids) return [];
  const unique = [...new Set(ids)];
  const roles = await Promise.all(unique.map((id) => memberRole(deps, companyId, id)));
  return unique.filter((_id, i) => roles[i] !== null);
}

export async function createSupportTeam(deps: CommandDeps, input: Actor & SupportTeamFields) {
  const teamId = randomUUID();
  const result = await handleCommand(
    deps.eventStore,
    supportTeamsStream(input.companyId),
    supportTeamsDecider,
    {
      type: 'CreateSupportTeam',
      companyId: input.companyId,
      teamId,
      name: input.name,
      memberIds: input.memberIds,
      capacity: input.capacity,
      teammateIds: await teammatesAmong(deps, input.companyId, input.memberIds),
      by: `user:${input.userId}`,
      now: now(deps),
    },
    { metadata: metadataOf(input) },
  );
  return { ...result, team: result.state.teams.get(teamId)! };
}

export async function updateSupportTeam(deps: CommandDeps, input: Actor & { teamId: string; changes: Partial<SupportTeamFields> }) {
  const result = await handleCommand(
    deps.eventStore,
    supportTeamsStream(input.companyId),
    supportTeamsDecider,
    {
      type: 'UpdateSupportTeam',
      companyId: input.companyId,
      teamId: input.teamId,
      changes: input.changes,
      teammateIds: await teammatesAmong(deps, input.companyId, input.changes.memberIds),
      by: `user:${input.userId}`,
      now: now(deps),
    },
    { metadata: metadataOf(input) },
  );
  return { ...result, team: result.state.teams.get(input.teamId)! };
}

export const deleteSupportTeam = (deps: CommandDeps, input: Actor & { teamId: string }) =>
  handleCommand(
    deps.eventStore,
    supportTeamsStream(input.companyId),
    supportTeamsDecider,
    { type: 'DeleteSupportTeam', companyId: input.companyId, teamId: input.teamId, by: `user:${input.userId}`, now: now(deps) },
    { metadata: metadataOf(input) },
  );

/** Handoffs from the company's integration go to `teamId` (null: the whole company). Another company's integration is NOT_FOUND. */
export async function setTeamRoute(deps: CommandDeps, input: Actor & { integrationId: number; teamId: string | null }) {
  if (!(await loadCompanyIntegration(deps.eventStore, input.companyId, input.integrationId))) throw new DomainError('NOT_FOUND', 'Integration not found');
  return handleCommand(
    deps.eventStore,
    supportTeamsStream(input.companyId),
    supportTeamsDecider,
    { type: 'SetTeamRoute', companyId: input.companyId, integrationId: input.integrationId, teamId: input.teamId, by: `user:${input.userId}`, now: now(deps) },
    { metadata: metadataOf(input) },
  );
}
