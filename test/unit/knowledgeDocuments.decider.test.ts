import { describe, expect, it } from 'vitest';
import {
  knowledgeDocumentDecider,
  knowledgeDocumentEvents,
  MAX_DOCUMENT_BYTES,
  type KnowledgeDocumentEvent,
} from '../../src/domain/knowledge/documents.js';
import { specFor } from '../support/gwt.js';

const D1 = 'eeeeeeee-eeee-4eee-8eee-eeeeeeeeeeee';
const C1 = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const C2 = 'dddddddd-dddd-4ddd-8ddd-dddddddddddd';
const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-02T00:00:00.000Z';

const doc = specFor(knowledgeDocumentDecider);
const add = (content: string, title = 'Shipping') => ({ type: 'AddKnowledgeDocument', documentId: D1, companyId: C1, title, content, chunkCount: 1, now: T0 }) as const;
const added: KnowledgeDocumentEvent = {
  type: 'KnowledgeDocumentAdded',
  data: { documentId: D1, companyId: C1, title: 'Shipping', content: 'We ship to Norway within 5 days.', chunkCount: 1, at: T0 },
};

describe('knowledge document decider', () => {
  it('adds a document', () => {
    const state = doc.given([]).when(add('We ship to Norway within 5 days.')).then([added]);
    expect(state).toEqual({ status: 'active_record', documentId: D1, companyId: C1, title: 'Shipping', createdAt: T0, deletedAt: null });
  });

  it('accepts content of exactly 1 MiB and refuses one byte more (PAYLOAD_TOO_LARGE)', () => {
    const exact = 'a'.repeat(MAX_DOCUMENT_BYTES);
    expect(knowledgeDocumentDecider.decide(add(exact), knowledgeDocumentDecider.initialState)).toHaveLength(1);
    doc.given([]).when(add(exact + 'a')).thenThrows('PAYLOAD_TOO_LARGE');
    // Bytes, not characters: 'é' is two bytes of UTF-8.
    doc.given([]).when(add('é'.repeat(MAX_DOCUMENT_BYTES / 2 + 1))).thenThrows('PAYLOAD_TOO_LARGE');
    expect(knowledgeDocumentEvents.KnowledgeDocumentAdded.safeParse({ ...added.data, content: exact + 'a' }).success).toBe(false);
  });

  it('refuses an empty title or content', () => {
    doc.given([]).when(add('   ')).thenThrows('VALIDATION_ERROR');
    doc.given([]).when(add('text', ' ')).thenThrows('VALIDATION_ERROR');
  });

  it('refuses to add the same document twice', () => {
    doc.given([added]).when(add('again')).thenThrows('CONFLICT');
  });

  it('deletes a document once', () => {
    const state = doc.given([added]).when({ type: 'DeleteKnowledgeDocument', companyId: C1, now: T1 }).then([{ type: 'KnowledgeDocumentDeleted', data: { at: T1 } }]);
    expect(state).toMatchObject({ status: 'deleted', deletedAt: T1 });
    doc.given([added, { type: 'KnowledgeDocumentDeleted', data: { at: T1 } }]).when({ type: 'DeleteKnowledgeDocument', companyId: C1, now: T1 }).thenThrows('NOT_FOUND');
  });

  it("another company's document is NOT_FOUND", () => {
    doc.given([added]).when({ type: 'DeleteKnowledgeDocument', companyId: C2, now: T1 }).thenThrows('NOT_FOUND');
    doc.given([]).when({ type: 'DeleteKnowledgeDocument', companyId: C1, now: T1 }).thenThrows('NOT_FOUND');
  });
});
