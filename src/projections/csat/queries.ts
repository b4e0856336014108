import { monthsInRange } from '../../domain/localDay.js';
import type { FindQuery, Page, ReadStore } from '../../ports/readStore.js';
import { CSAT_DAYS, CSAT_RESPONSES, type CsatDayDoc, type CsatResponseDoc } from './csatProjection.js';

export interface CsatFigures {
  requested: number;
  responses: number;
  /** Mean rating, null without answers. */
  average: number | null;
  /** How many of each rating, 1 to 5. */
  scores: number[];
}

export interface CsatReport {
  from: string;
  to: string;
  totals: CsatFigures;
  byAgent: (CsatFigures & { agentId: string })[];
  byAgentVersion: (CsatFigures & { agentId: string; version: number })[];
  byTeammate: (CsatFigures & { userId: string })[];
  byIntegration: (CsatFigures & { integrationId: number })[];
}

const PAGE = 1000;
const empty = (): CsatFigures & { total: number } => ({ requested: 0, responses: 0, average: null, scores: [0, 0, 0, 0, 0], total: 0 });
const figures = ({ total, ...f }: CsatFigures & { total: number }): CsatFigures => ({ ...f, average: f.responses ? Math.round((total / f.responses) * 100) / 100 : null });

/**
 * The company's CSAT from `from` to `to` (local dates, both included; the caller bounds the range to 366 days),
 * overall and per agent, agent version, teammate and integration. Reads the day documents of the months the range touches,
 * page by page: a bounded number of documents per day (the company's subjects), never the answers themselves.
 */
export async function csatReport(readStore: ReadStore, input: { companyId: string; from: string; to: string }): Promise<CsatReport> {
  const sums = new Map<string, ReturnType<typeof empty>>();
  for (const month of monthsInRange(input.from, input.to)) {
    let cursor: string | null = null;
    do {
      const page: Page<CsatDayDoc> = await readStore.find<CsatDayDoc>(CSAT_DAYS, { where: { companyId: input.companyId, month }, limit: PAGE, cursor });
      for (const doc of page.items) {
        if (doc.date < input.from || doc.date > input.to) continue;
        const sum = sums.get(doc.subject) ?? empty();
        sum.requested += doc.requested;
        sum.responses += doc.responses;
        sum.total += doc.total;
        doc.scores.forEach((n, i) => (sum.scores[i]! += n));
        sums.set(doc.subject, sum);
      }
      cursor = page.nextCursor;
    } while (cursor);
  }
  const of = (prefix: string) => [...sums].filter(([s]) => s.startsWith(prefix)).map(([s, sum]) => ({ id: s.slice(prefix.length), ...figures(sum) }));
  const byResponses = <T extends CsatFigures>(a: T, b: T) => b.responses - a.responses || b.requested - a.requested;
  return {
    from: input.from,
    to: input.to,
    totals: figures(sums.get('company') ?? empty()),
    byAgent: of('agent:').map(({ id, ...f }) => ({ agentId: id, ...f })).sort(byResponses),
    byAgentVersion: of('agentVersion:')
      .map(({ id, ...f }) => ({ agentId: id.slice(0, id.lastIndexOf(':')), version: Number(id.slice(id.lastIndexOf(':') + 1)), ...f }))
      .sort((a, b) => a.agentId.localeCompare(b.agentId) || b.version - a.version),
    byTeammate: of('teammate:').map(({ id, ...f }) => ({ userId: id, ...f })).sort(byResponses),
    byIntegration: of('integration:').map(({ id, ...f }) => ({ integrationId: Number(id), ...f })).sort(byResponses),
  };
}

/** The company's CSAT answers, newest first (keyset-paged). */
export async function listCsatResponses(readStore: ReadStore, companyId: string, page: Pick<FindQuery, 'limit' | 'cursor'>): Promise<Page<CsatResponseDoc>> {
  return readStore.find<CsatResponseDoc>(CSAT_RESPONSES, { where: { companyId }, orderBy: [{ field: 'at', direction: 'desc' }], limit: page.limit, cursor: page.cursor ?? null });
}
