import { describe, expect, it } from 'vitest';
import { CONTENT_PART_BYTES, contentBytes, MAX_DOCUMENT_BYTES, splitContent } from '../../../../../src/domain/knowledge/documents/content.js';
import { knowledgeDocumentDecider } from '../../../../../src/domain/knowledge/documents/decider.js';
import { knowledgeDocumentEvents, type KnowledgeDocumentEvent } from '../../../../../src/domain/knowledge/documents/events.js';
import { specFor } from '../../../../support/gwt.js';

const D1 = 'eeeeeeee-eeee-4eee-8eee-eeeeeeeeeeee';
const C1 = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const C2 = 'dddddddd-dddd-4ddd-8ddd-dddddddddddd';
const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-02T00:00:00.000Z';
const TEXT = 'We ship to Norway within 5 days.';

const doc = specFor(knowledgeDocumentDecider);
const add = (content: string, title = 'Shipping') => ({ type: 'AddKnowledgeDocument', documentId: D1, companyId: C1, title, content, chunkCount: 1, now: T0 }) as const;
const uploaded: KnowledgeDocumentEvent[] = [
  { type: 'KnowledgeDocumentUploaded', data: { documentId: D1, companyId: C1, title: 'Shipping', bytes: TEXT.length, chunkCount: 1, parts: 1, at: T0 } },
  { type: 'KnowledgeDocumentPartAdded', data: { index: 0, text: TEXT } },
];
/** How documents were stored before content parts: still read. */
const legacyAdded: KnowledgeDocumentEvent = {
  type: 'KnowledgeDocumentAdded',
  data: { documentId: D1, companyId: C1, title: 'Shipping', content: TEXT, chunkCount: 1, at: T0 },
};
const deleted: KnowledgeDocumentEvent = { type: 'KnowledgeDocumentDeleted', data: { at: T1 } };
const abandon = { type: 'AbandonKnowledgeDocument', companyId: C1, now: T1 } as const;

describe('knowledge document decider', () => {
  it('adds a document: a header with its size, then its content', () => {
    const state = doc.given([]).when(add(TEXT)).then(uploaded);
    expect(state).toEqual({ status: 'active', documentId: D1, companyId: C1, title: 'Shipping', createdAt: T0, deletedAt: null, quotaBytes: TEXT.length, revision: 1 });
  });

  it('stores a 1 MiB document as 16 parts of at most 64 KiB, which join back into the content', () => {
    const content = 'abcdefghij'.repeat(MAX_DOCUMENT_BYTES / 10) + 'abcdef';
    expect(contentBytes(content)).toBe(MAX_DOCUMENT_BYTES);
    const events = knowledgeDocumentDecider.decide(add(content), knowledgeDocumentDecider.initialState);
    expect(events[0]).toMatchObject({ type: 'KnowledgeDocumentUploaded', data: { bytes: MAX_DOCUMENT_BYTES, parts: 16 } });
    const parts = events.slice(1);
    expect(parts).toHaveLength(16);
    parts.forEach((e, i) => expect(e).toMatchObject({ type: 'KnowledgeDocumentPartAdded', data: { index: i } }));
    const texts = parts.map((e) => (e.data as { text: string }).text);
    expect(texts.every((t) => contentBytes(t) <= CONTENT_PART_BYTES)).toBe(true);
    expect(texts.join('')).toBe(content);
    for (const e of events) expect(knowledgeDocumentEvents[e.type].safeParse(e.data).success).toBe(true);
  });

  it('accepts content of exactly 1 MiB and refuses one byte more (PAYLOAD_TOO_LARGE)', () => {
    const exact = 'a'.repeat(MAX_DOCUMENT_BYTES);
    expect(knowledgeDocumentDecider.decide(add(exact), knowledgeDocumentDecider.initialState)[0]!.type).toBe('KnowledgeDocumentUploaded');
    doc.given([]).when(add(exact + 'a')).thenThrows('PAYLOAD_TOO_LARGE');
    // Bytes, not characters: 'é' is two bytes of UTF-8.
    doc.given([]).when(add('é'.repeat(MAX_DOCUMENT_BYTES / 2 + 1))).thenThrows('PAYLOAD_TOO_LARGE');
    expect(knowledgeDocumentEvents.KnowledgeDocumentAdded.safeParse({ ...legacyAdded.data, content: exact + 'a' }).success).toBe(false);
  });

  it('refuses an empty title or content', () => {
    doc.given([]).when(add('   ')).thenThrows('VALIDATION_ERROR');
    doc.given([]).when(add('text', ' ')).thenThrows('VALIDATION_ERROR');
  });

  it('refuses to add the same document twice', () => {
    doc.given(uploaded).when(add('again')).thenThrows('CONFLICT');
    doc.given([legacyAdded]).when(add('again')).thenThrows('CONFLICT');
  });

  it('deletes a document once', () => {
    const state = doc.given(uploaded).when({ type: 'DeleteKnowledgeDocument', companyId: C1, now: T1 }).then([deleted]);
    expect(state).toMatchObject({ status: 'deleted', deletedAt: T1, quotaBytes: TEXT.length });
    doc.given([...uploaded, deleted]).when({ type: 'DeleteKnowledgeDocument', companyId: C1, now: T1 }).thenThrows('NOT_FOUND');
  });

  it('reads documents stored as one event before content parts: deletable, counted by no quota', () => {
    const state = doc.given([legacyAdded]).when({ type: 'DeleteKnowledgeDocument', companyId: C1, now: T1 }).then([deleted]);
    expect(state).toMatchObject({ status: 'deleted', quotaBytes: null });
  });

  it("another company's document is NOT_FOUND", () => {
    doc.given(uploaded).when({ type: 'DeleteKnowledgeDocument', companyId: C2, now: T1 }).thenThrows('NOT_FOUND');
    doc.given([]).when({ type: 'DeleteKnowledgeDocument', companyId: C1, now: T1 }).thenThrows('NOT_FOUND');
  });

  describe('a reservation whose upload never came', () => {
    const abandoned: KnowledgeDocumentEvent = { type: 'KnowledgeDocumentAbandoned', data: { companyId: C1, at: T1 } };

    it('closes a document stream that is still empty, so the late upload is refused', () => {
      doc.given([]).when(abandon).then([abandoned]);
      doc.given([abandoned]).when(add(TEXT)).thenThrows('CONFLICT');
      doc.given([abandoned]).when({ type: 'DeleteKnowledgeDocument', companyId: C1, now: T1 }).thenThrows('NOT_FOUND');
    });

    it('changes nothing once the document was stored, deleted or abandoned already', () => {
      doc.given(uploaded).when(abandon).then([]);
      doc.given([...uploaded, deleted]).when(abandon).then([]);
      doc.given([abandoned]).when(abandon).then([]);
    });
  });
});

describe('splitContent', () => {
  it('keeps short content whole and never returns an empty part', () => {
    expect(splitContent('hello')).toEqual(['hello']);
    expect(splitContent('')).toEqual([]);
  });

  it('bounds parts by bytes of UTF-8, not characters, and never splits a surrogate pair', () => {
    const content = 'aé€😀'.repeat(5000); // 1 + 2 + 3 + 4 bytes
    const parts = splitContent(content, 1000);
    expect(parts.join('')).toBe(content);
    parts.forEach((p, i) => {
      expect(contentBytes(p)).toBeLessThanOrEqual(1000);
      // Close to full (but the last): the count of parts stays near bytes / 1000.
      if (i < parts.length - 1) expect(contentBytes(p)).toBeGreaterThan(990);
      expect(p.charCodeAt(p.length - 1) >= 0xd800 && p.charCodeAt(p.length - 1) <= 0xdbff).toBe(false);
    });
  });
});

describe('knowledge document decider: editing a document', () => {
  const NEW = 'We ship to Norway and Sweden within 3 days.';
  const revise = (expectedRevision: number, companyId = C1, content = NEW, title = 'Shipping times') =>
    ({ type: 'ReviseKnowledgeDocument', companyId, expectedRevision, title, content, chunkCount: 1, now: T1 }) as const;
  const revised = (revision: number, content = NEW, title = 'Shipping times'): KnowledgeDocumentEvent[] => [
    { type: 'KnowledgeDocumentRevised', data: { documentId: D1, companyId: C1, title, bytes: contentBytes(content), chunkCount: 1, parts: 1, revision, at: T1 } },
    { type: 'KnowledgeDocumentPartAdded', data: { index: 0, text: content } },
  ];

  it('given an uploaded document, when edited on its revision 1, then a revised header (revision 2) and the new content; the quota counts the new size', () => {
    const state = doc.given(uploaded).when(revise(1)).then(revised(2));
    expect(state).toMatchObject({ status: 'active', title: 'Shipping times', revision: 2, quotaBytes: contentBytes(NEW), createdAt: T0 });
  });

  it('given a document edited once, when edited again on revision 2, then revision 3', () => {
    doc.given([...uploaded, ...revised(2)]).when(revise(2, C1, 'Sweden too.', 'Shipping')).then(revised(3, 'Sweden too.', 'Shipping'));
  });

  it('given a document already at revision 2, when an edit made on revision 1 arrives (it lost the race), then CONFLICT and nothing', () => {
    doc.given([...uploaded, ...revised(2)]).when(revise(1)).thenThrows('CONFLICT');
  });

  it("another company's, a deleted or a missing document: NOT_FOUND", () => {
    doc.given(uploaded).when(revise(1, C2)).thenThrows('NOT_FOUND');
    doc.given([...uploaded, deleted]).when(revise(1)).thenThrows('NOT_FOUND');
    doc.given([]).when(revise(1)).thenThrows('NOT_FOUND');
  });

  it('the edit is checked like an upload: empty title or content, over 1 MiB', () => {
    doc.given(uploaded).when(revise(1, C1, NEW, '  ')).thenThrows('VALIDATION_ERROR');
    doc.given(uploaded).when(revise(1, C1, ' \n ')).thenThrows('VALIDATION_ERROR');
    doc.given(uploaded).when(revise(1, C1, 'x'.repeat(MAX_DOCUMENT_BYTES + 1))).thenThrows('PAYLOAD_TOO_LARGE');
  });

  it('a document stored before quotas stays uncounted when edited', () => {
    const state = doc.given([legacyAdded]).when(revise(1)).then(revised(2));
    expect(state).toMatchObject({ revision: 2, quotaBytes: null });
  });
});
