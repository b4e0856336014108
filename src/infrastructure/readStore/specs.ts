/**
 * Read store semantics every adapter shares (pure functions, no engine): collection and field names, index
 * specs, the last write per document in a commit, positions as sortable strings.
 */
import { RESERVED_FIELDS, type CollectionSpec, type WriteOp } from '../../ports/readStore.js';

const collectionNamePattern = /^[A-Za-z][A-Za-z0-9_]{0,62}$/;
const fieldPathPattern = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

export function checkCollectionName(name: string): void {
  if (!collectionNamePattern.test(name)) throw new Error(`invalid read model collection name: ${JSON.stringify(name)}`);
}

export function checkFieldPath(collection: string, field: string): void {
  if (!fieldPathPattern.test(field) || RESERVED_FIELDS.includes(field.split('.')[0]!)) {
    throw new Error(`invalid field ${JSON.stringify(field)} in read model collection ${collection}`);
  }
}

/** Validates a spec and returns its indexes as field lists (each without the implicit trailing `id`). */
export function indexKeys(spec: CollectionSpec): string[][] {
  checkCollectionName(spec.name);
  const out: string[][] = [];
  for (const entry of spec.indexes) {
    const fields = (typeof entry === 'string' ? [entry] : entry).filter((f) => f !== 'id');
    for (const f of fields) checkFieldPath(spec.name, f);
    if (fields.length > 0) out.push(fields);
  }
  return out;
}

/** Every field a query on this collection may use. */
export function queryableFields(spec: CollectionSpec): Set<string> {
  return new Set(['id', ...indexKeys(spec).flat()]);
}

/** Only the last op per (collection, id) counts, in the order of those last ops. */
export function collapseOps(ops: WriteOp[]): WriteOp[] {
  const last = new Map<string, WriteOp>();
  for (const op of ops) {
    const key = `${op.collection}\u0000${op.kind === 'put' ? op.doc.id : op.id}`;
    last.delete(key);
    last.set(key, op);
  }
  return [...last.values()];
}

/**
 * A position as a fixed-width decimal string (20 digits: every unsigned 64-bit value), so engines compare
 * positions as strings without ever turning them into lossy JS numbers.
 */
export function positionKey(position: bigint): string {
  if (position < 0n || position > 0xffff_ffff_ffff_ffffn) throw new Error(`position ${position} is out of range`);
  return position.toString().padStart(20, '0');
}

/** A short, stable hash of a query's shape: cursors carry it, so one cannot be replayed against another query. */
export function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(36);
}
