import type { ReadStore } from '../../ports/readStore.js';
import { SUPPORT_TEAMS, TEAM_ROUTES, type SupportTeamDoc, type TeamRoutesDoc } from './supportTeamsProjection.js';

const PAGE = 100;

/** All the company's support teams, by name (at most SUPPORT_TEAM_LIMITS.teams: a page or so). */
export async function listSupportTeams(readStore: ReadStore, companyId: string): Promise<SupportTeamDoc[]> {
  const out: SupportTeamDoc[] = [];
  let cursor: string | null = null;
  do {
    const page: { items: SupportTeamDoc[]; nextCursor: string | null } = await readStore.find<SupportTeamDoc>(SUPPORT_TEAMS, {
      where: { companyId },
      orderBy: [{ field: 'name', direction: 'asc' }],
      limit: PAGE,
      cursor,
    });
    out.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

/** The company's routes: integration id (as a string) → team id. */
export async function teamRoutes(readStore: ReadStore, companyId: string): Promise<Record<string, string>> {
  return (await readStore.get<TeamRoutesDoc>(TEAM_ROUTES, companyId))?.routes ?? {};
}
