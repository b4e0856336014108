import { describe, expect, it } from 'vitest';
import { drain, RECORDS_PAGE } from '../../../../src/commands/accounts/teammateRecords.js';

const logger = { warn: () => {} } as never;

/** A read model of `total` records that acting on removes, seen only once it has "caught up". */
function readModel(total: number) {
  const live = new Set(Array.from({ length: total }, (_, i) => `r${i}`));
  const pending = new Set<string>();
  let position = 0n;
  const reads: string[][] = [];
  return {
    reads,
    page: async (limit: number) => {
      const ids = [...live].slice(0, limit);
      reads.push(ids);
      return ids;
    },
    act: async (id: string) => {
      if (!live.has(id) || pending.has(id)) return { position: null };
      pending.add(id);
      return { position: ++position };
    },
    caughtUp: async () => {
      for (const id of pending) live.delete(id);
      pending.clear();
    },
  };
}

describe("a teammate's records, a page at a time", () => {
  it('given more records than a page, when drained, then each is acted on once and the last position returned', async () => {
    const model = readModel(RECORDS_PAGE * 2 + 5);
    expect(await drain({ logger }, model.caughtUp, 'records', model.page, model.act)).toBe(BigInt(RECORDS_PAGE * 2 + 5));
    expect(model.reads.map((r) => r.length)).toEqual([RECORDS_PAGE, RECORDS_PAGE, 5, 0]);
  });

  it('given read models that never catch up, when a page changes nothing, then it stops instead of reading it again', async () => {
    const model = readModel(3);
    const stale = async () => {};
    expect(await drain({ logger }, stale, 'records', model.page, model.act)).toBe(3n);
    expect(model.reads).toHaveLength(2);
  });
});
