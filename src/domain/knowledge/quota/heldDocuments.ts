/**
 * The set of documents a company's quota counts, cheap to copy on write. The quota state is folded over years
 * of uploads and must never be mutated (handleCommand caches it and re-decides on it after a conflict), so
 * each Reserved or Released event yields a new set; a flat set would cost a copy of every document per event
 * (O(events × documents) to fold the stream). Here the ids are spread over 256 buckets by their first two hex
 * digits (document ids are random UUIDs) and a change copies the bucket list and one bucket: about 256 + n/256
 * entries, whatever n is (at most KNOWLEDGE_MAX_DOCUMENTS, 100,000).
 */
export type HeldDocuments = readonly (ReadonlySet<string> | undefined)[];

export const noHeldDocuments: HeldDocuments = Object.freeze(new Array<undefined>(256).fill(undefined));

const bucketOf = (documentId: string) => {
  const bucket = Number.parseInt(documentId.slice(0, 2), 16);
  return Number.isNaN(bucket) ? 0 : bucket;
};

export const holdsDocument = (held: HeldDocuments, documentId: string): boolean => held[bucketOf(documentId)]?.has(documentId) ?? false;

export function withDocument(held: HeldDocuments, documentId: string): HeldDocuments {
  if (holdsDocument(held, documentId)) return held;
  const b = bucketOf(documentId);
  const next = held.slice();
  next[b] = new Set(held[b]).add(documentId);
  return next;
}

export function withoutDocument(held: HeldDocuments, documentId: string): HeldDocuments {
  if (!holdsDocument(held, documentId)) return held;
  const b = bucketOf(documentId);
  const bucket = new Set(held[b]);
  bucket.delete(documentId);
  const next = held.slice();
  next[b] = bucket.size > 0 ? bucket : undefined;
  return next;
}
