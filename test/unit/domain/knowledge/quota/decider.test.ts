import { describe, expect, it } from 'vitest';
import { knowledgeQuotaDecider } from '../../../../../src/domain/knowledge/quota/decider.js';
import { holdsKnowledgeDocument, staleReservations, type KnowledgeQuotaState } from '../../../../../src/domain/knowledge/quota/state.js';
import { type KnowledgeQuotaEvent } from '../../../../../src/domain/knowledge/quota/events.js';
import { specFor } from '../../../../support/gwt.js';

const D1 = '11111111-1111-4111-8111-111111111111';
const D2 = '22222222-2222-4222-8222-222222222222';
const D3 = '33333333-3333-4333-8333-333333333333';
const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-01T00:01:00.000Z';
const limits = { maxDocuments: 2, maxBytes: 1000 };

const quota = specFor(knowledgeQuotaDecider);
/** What the quota counts, without the set of documents it holds (checked on its own below). */
const usage = ({ documents, bytes, pending }: KnowledgeQuotaState) => ({ documents, bytes, pending });
const reserve = (documentId: string, bytes: number) => ({ type: 'ReserveKnowledgeQuota', documentId, bytes, limits, now: T1 }) as const;
const confirm = (documentId: string) => ({ type: 'ConfirmKnowledgeQuota', documentId, now: T1 }) as const;
const release = (documentId: string, bytes: number, reason: 'deleted' | 'failed' | 'abandoned') => ({ type: 'ReleaseKnowledgeQuota', documentId, bytes, reason, now: T1 }) as const;
const reserved = (documentId: string, bytes: number, at = T0): KnowledgeQuotaEvent => ({ type: 'KnowledgeQuotaReserved', data: { documentId, bytes, at } });
const confirmed = (documentId: string): KnowledgeQuotaEvent => ({ type: 'KnowledgeQuotaConfirmed', data: { documentId, at: T0 } });
const released = (documentId: string, bytes: number, reason: 'deleted' | 'failed' | 'abandoned', at = T1): KnowledgeQuotaEvent => ({
  type: 'KnowledgeQuotaReleased',
  data: { documentId, bytes, reason, at },
});

describe('knowledge quota decider', () => {
  it('reserves a slot and the bytes of a document while both fit', () => {
    const state = quota.given([]).when(reserve(D1, 400)).then([reserved(D1, 400, T1)]);
    expect(usage(state)).toEqual({ documents: 1, bytes: 400, pending: { [D1]: { bytes: 400, at: T1 } } });
  });

  it('refuses a document beyond the document limit: QUOTA_EXCEEDED', () => {
    quota.given([reserved(D1, 1), confirmed(D1), reserved(D2, 1), confirmed(D2)]).when(reserve(D3, 1)).thenThrows('QUOTA_EXCEEDED');
    expect(() => knowledgeQuotaDecider.decide(reserve(D3, 1), quota.given([reserved(D1, 1), reserved(D2, 1)]).state)).toThrow(
      'a company may store at most 2 documents and this one has 2',
    );
  });

  it('refuses bytes beyond the byte limit, accepts exactly the limit', () => {
    quota.given([reserved(D1, 600), confirmed(D1)]).when(reserve(D2, 401)).thenThrows('QUOTA_EXCEEDED');
    expect(() => knowledgeQuotaDecider.decide(reserve(D2, 401), quota.given([reserved(D1, 600)]).state)).toThrow('600 bytes are in use and this document has 401');
    quota.given([reserved(D1, 600), confirmed(D1)]).when(reserve(D2, 400)).then([reserved(D2, 400, T1)]);
  });

  it('a reservation repeated for the same document reserves nothing more', () => {
    quota.given([reserved(D1, 400)]).when(reserve(D1, 400)).then([]);
  });

  it('confirms a pending reservation once: it stays counted', () => {
    const state = quota.given([reserved(D1, 400)]).when(confirm(D1)).then([{ type: 'KnowledgeQuotaConfirmed', data: { documentId: D1, at: T1 } }]);
    expect(usage(state)).toEqual({ documents: 1, bytes: 400, pending: {} });
    quota.given([reserved(D1, 400), confirmed(D1)]).when(confirm(D1)).then([]);
    quota.given([]).when(confirm(D1)).then([]);
  });

  it('deleting a stored document releases its slot and its own bytes; space is free again', () => {
    const state = quota.given([reserved(D1, 600), confirmed(D1), reserved(D2, 300), confirmed(D2)]).when(release(D1, 600, 'deleted')).then([released(D1, 600, 'deleted')]);
    expect(usage(state)).toEqual({ documents: 1, bytes: 300, pending: {} });
    quota.given([reserved(D1, 600), confirmed(D1), reserved(D2, 300), confirmed(D2), released(D1, 600, 'deleted')]).when(reserve(D3, 700)).then([reserved(D3, 700, T1)]);
  });

  it('a failed or abandoned upload releases the bytes it reserved; one never reserved releases nothing', () => {
    const state = quota.given([reserved(D1, 600)]).when(release(D1, 0, 'failed')).then([released(D1, 600, 'failed')]);
    expect(usage(state)).toEqual({ documents: 0, bytes: 0, pending: {} });
    quota.given([reserved(D1, 600)]).when(release(D1, 0, 'abandoned')).then([released(D1, 600, 'abandoned')]);
    quota.given([]).when(release(D1, 600, 'failed')).then([]);
    quota.given([reserved(D1, 600), released(D1, 600, 'failed')]).when(release(D1, 600, 'abandoned')).then([]);
  });

  it('a document released before (a repeated DELETE) releases nothing more, decided on the state, not left to the store', () => {
    const stored = [reserved(D1, 400), confirmed(D1), reserved(D2, 400), confirmed(D2)];
    quota.given([...stored, released(D1, 400, 'deleted')]).when(release(D1, 400, 'deleted')).then([]);
    quota.given([...stored, released(D1, 400, 'failed')]).when(release(D1, 400, 'deleted')).then([]);
    quota.given(stored).when(release(D3, 400, 'deleted')).then([]); // never counted
    const state = quota.given([...stored, released(D1, 400, 'deleted')]).state;
    expect(holdsKnowledgeDocument(state, D1)).toBe(false);
    expect(holdsKnowledgeDocument(state, D2)).toBe(true);
  });

  it('a release stored twice (by an engine that keeps a repeated event id) frees the document once: the fold heals the count', () => {
    const stored = [reserved(D1, 400), confirmed(D1), reserved(D2, 400), confirmed(D2)];
    const twice = [...stored, released(D1, 400, 'deleted'), released(D1, 400, 'deleted'), released(D1, 400, 'deleted')];
    expect(usage(quota.given(twice).state)).toEqual({ documents: 1, bytes: 400, pending: {} });
    expect(usage(quota.given([reserved(D1, 400), reserved(D1, 400)]).state)).toEqual({ documents: 1, bytes: 400, pending: { [D1]: { bytes: 400, at: T0 } } });
  });

  it('never counts below zero', () => {
    expect(usage(quota.given([released(D1, 600, 'deleted')]).state)).toEqual({ documents: 0, bytes: 0, pending: {} });
  });

  it('finds the pending reservations older than 5 minutes, oldest first', () => {
    const state = quota.given([reserved(D1, 1, '2026-01-01T00:00:00.000Z'), reserved(D2, 1, '2026-01-01T00:03:00.000Z'), reserved(D3, 1, '2026-01-01T00:01:00.000Z'), confirmed(D3)]).state;
    expect(staleReservations(state, new Date('2026-01-01T00:04:59.000Z'))).toEqual([]);
    expect(staleReservations(state, new Date('2026-01-01T00:05:00.000Z'))).toEqual([D1]);
    expect(staleReservations(state, new Date('2026-01-01T00:09:00.000Z'))).toEqual([D1, D2]);
  });
});

describe('knowledge quota decider: edits resize a stored document', () => {
  const E1 = '44444444-4444-4444-8444-444444444444';
  const resize = (deltaBytes: number, undo = false) => ({ type: 'ResizeKnowledgeQuota', documentId: D1, editId: E1, deltaBytes, undo, limits, now: T1 }) as const;
  const resized = (deltaBytes: number, undo = false): KnowledgeQuotaEvent => ({
    type: 'KnowledgeQuotaResized',
    data: { documentId: D1, editId: E1, deltaBytes, ...(undo ? { undo } : {}), at: T1 },
  });
  const stored = [reserved(D1, 400), confirmed(D1)];

  it('given a stored document of 400 bytes, when an edit grows it by 600 (exactly the limit), then resized; the document count is unchanged', () => {
    const state = quota.given(stored).when(resize(600)).then([resized(600)]);
    expect(usage(state)).toEqual({ documents: 1, bytes: 1000, pending: {} });
  });

  it('an edit growing the content past the byte limit: QUOTA_EXCEEDED', () => {
    quota.given(stored).when(resize(601)).thenThrows('QUOTA_EXCEEDED');
  });

  it('an edit shrinking it frees the bytes; deleting it afterwards releases its new size', () => {
    const state = quota.given(stored).when(resize(-300)).then([resized(-300)]);
    expect(state.bytes).toBe(100);
    quota.given([...stored, resized(-300)]).when(release(D1, 100, 'deleted')).then([released(D1, 100, 'deleted')]);
  });

  it('the undo of a growth whose edit failed is never refused, even over the limit', () => {
    const state = quota.given([...stored, resized(600)]).when(resize(-600, true)).then([resized(-600, true)]);
    expect(state.bytes).toBe(400);
  });

  it('an edit that keeps the size changes nothing', () => {
    quota.given(stored).when(resize(0)).then([]);
  });
});
