/**
 * The compound indexes of a list whose filters combine freely: `equality` first (always filtered on), then
 * every subset of `optional` (in a fixed order: a query's equality fields may come in any order), then the
 * sort fields. One index per combination, so every page is read off an index in order and no engine sorts
 * in memory (infrastructure/readStore/find.ts checks each query against its collection's indexes).
 */
export function listIndexes(equality: string[], optional: string[], sort: string[]): string[][] {
  const subsets = optional.reduce<string[][]>((sets, field) => [...sets, ...sets.map((set) => [...set, field])], [[]]);
  return subsets.map((subset) => [...equality, ...subset, ...sort]);
}
