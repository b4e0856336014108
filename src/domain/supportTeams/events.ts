import { z } from 'zod';
import { MAX_CAPACITY } from '../company/autoAssignment/events.js';

/**
 * A company's support teams (groups of teammates who take a kind of conversation: "Billing", "Tier 2") and its
 * routing: which team a handed-off conversation from an integration goes to. Not the company's roster of
 * teammates (that is `accounts/team/`): a support team picks some of those teammates.
 *
 * One stream per company (`supportteams-<companyId>`) holds every team and route, so a name is unique, a route
 * names a team that exists, and deleting a team drops its routes, each in one decision; the set is small
 * (SUPPORT_TEAM_LIMITS) and edited by hand.
 */
export const SUPPORT_TEAM_LIMITS = { teams: 50, members: 200, name: 80 } as const;

const at = z.iso.datetime();
const by = z.string().max(100);
export const supportTeamFields = z.object({
  name: z.string().trim().min(1).max(SUPPORT_TEAM_LIMITS.name),
  memberIds: z.array(z.uuid()).max(SUPPORT_TEAM_LIMITS.members),
  /** Open conversations a member of this team takes at most through automatic assignment; null: the company's capacity. */
  capacity: z.number().int().min(1).max(MAX_CAPACITY).nullable(),
});
export type SupportTeamFields = z.infer<typeof supportTeamFields>;

export const supportTeamEvents = {
  SupportTeamCreated: supportTeamFields.extend({ teamId: z.uuid(), companyId: z.uuid(), by, at }),
  SupportTeamUpdated: z.object({ teamId: z.uuid(), changes: supportTeamFields.partial(), by, at }),
  /** The team's routes go with it: their integrations' handoffs go to the whole company again. */
  SupportTeamDeleted: z.object({ teamId: z.uuid(), by, at }),
  /** Handoffs from `integrationId` go to `teamId` from now on (null: to the whole company). */
  TeamRouteSet: z.object({ integrationId: z.number().int().positive(), teamId: z.uuid().nullable(), by, at }),
};
type Events = typeof supportTeamEvents;
export type SupportTeamEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]>; id?: string } }[keyof Events];
