import type { KnowledgeQuotaEvent } from './events.js';
import { holdsDocument, noHeldDocuments, withDocument, withoutDocument, type HeldDocuments } from './heldDocuments.js';

export interface KnowledgeQuotaState {
  /** Documents counted: stored ones and pending reservations. */
  documents: number;
  /** Content bytes counted, likewise. */
  bytes: number;
  /** Reservations whose document is not confirmed yet: documentId → its bytes and when it was reserved. */
  pending: Readonly<Record<string, { bytes: number; at: string }>>;
  /**
   * Every document counted (pending or stored): what makes a release happen once on every engine. A release
   * of a document not held here is a repeat (a repeated DELETE, two processes settling the same reservation),
   * and EventStoreDB stores a repeated event id again at the stream's current revision, so neither the
   * decider nor the fold may rely on the store refusing it.
   */
  held: HeldDocuments;
}

const without = (pending: KnowledgeQuotaState['pending'], documentId: string) => {
  const { [documentId]: _gone, ...rest } = pending;
  return rest;
};

export const initialKnowledgeQuotaState: KnowledgeQuotaState = { documents: 0, bytes: 0, pending: {}, held: noHeldDocuments };

/** True while the quota counts the document (reserved, and not released since). */
export const holdsKnowledgeDocument = (state: KnowledgeQuotaState, documentId: string) => holdsDocument(state.held, documentId);

export function evolveKnowledgeQuota(state: KnowledgeQuotaState, event: KnowledgeQuotaEvent): KnowledgeQuotaState {
  switch (event.type) {
    case 'KnowledgeQuotaReserved':
      if (holdsDocument(state.held, event.data.documentId)) return state; // a repeat stored by an engine that keeps it
      return {
        documents: state.documents + 1,
        bytes: state.bytes + event.data.bytes,
        pending: { ...state.pending, [event.data.documentId]: { bytes: event.data.bytes, at: event.data.at } },
        held: withDocument(state.held, event.data.documentId),
      };
    case 'KnowledgeQuotaConfirmed':
      return { ...state, pending: without(state.pending, event.data.documentId) };
    case 'KnowledgeQuotaResized':
      return { ...state, bytes: Math.max(0, state.bytes + event.data.deltaBytes) };
    case 'KnowledgeQuotaReleased':
      // A second release of one document (stored before releases were decided on `held`) frees nothing: folding
      // the stream again heals a count it once emptied.
      if (!holdsDocument(state.held, event.data.documentId)) return state;
      return {
        documents: Math.max(0, state.documents - 1),
        bytes: Math.max(0, state.bytes - event.data.bytes),
        pending: without(state.pending, event.data.documentId),
        held: withoutDocument(state.held, event.data.documentId),
      };
  }
}

/** A pending reservation older than this has lost its upload: an append never takes this long (SQLite waits 5 s at most). */
export const STALE_RESERVATION_MS = 5 * 60_000;

/** Pending reservations older than STALE_RESERVATION_MS at `now`, oldest first. */
export function staleReservations(state: KnowledgeQuotaState, now: Date): string[] {
  const cutoff = now.getTime() - STALE_RESERVATION_MS;
  return Object.entries(state.pending)
    .filter(([, r]) => Date.parse(r.at) <= cutoff)
    .sort((a, b) => a[1].at.localeCompare(b[1].at))
    .map(([id]) => id);
}
