import { describe, expect, it } from 'vitest';
import { conversationDecider, type ConversationCommand } from '../../../../src/domain/conversations/decider.js';
import { NOTE_LIMITS, type ConversationEvent } from '../../../../src/domain/conversations/events.js';
import { specFor } from '../../../support/gwt.js';

const spec = specFor(conversationDecider);
const CONV = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const CO = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const ANN = 'a0a0a0a0-a0a0-40a0-80a0-a0a0a0a0a0a0';
const BOB = 'b0b0b0b0-b0b0-40b0-80b0-b0b0b0b0b0b0';
const N1 = '61616161-6161-4616-8616-616161616161';
const N2 = '62626262-6262-4626-8626-626262626262';
const T = '2026-01-01T00:00:00.000Z';
const T2 = '2026-01-01T00:05:00.000Z';

const started: ConversationEvent = {
  type: 'ConversationStarted',
  data: { conversationId: CONV, companyId: CO, integrationId: 7, connectorType: 'msgplatform', customer: { clientId: 42, channelId: 1, transport: 'telegram' }, stageId: null, at: T },
};
const addNote = (noteId = N1, text = '@Bob can you check the refund?', mentions: string[] = [BOB]): ConversationCommand => ({ type: 'AddNote', noteId, authorId: ANN, text, mentions, now: T2 });
const noteAdded = (noteId = N1, text = '@Bob can you check the refund?', mentions: string[] = [BOB]): ConversationEvent => ({ type: 'NoteAdded', data: { noteId, authorId: ANN, text, mentions, at: T2 } });

describe('internal notes', () => {
  it('a note records its author, its text and the teammates it mentions', () => {
    spec.given([started]).when(addNote()).then([noteAdded()]);
  });

  it('the same note again (a retried request) records nothing; another note is recorded', () => {
    spec.given([started, noteAdded()]).when(addNote()).then([]);
    spec.given([started, noteAdded()]).when(addNote(N2, 'second thought', [])).then([noteAdded(N2, 'second thought', [])]);
  });

  it('the text is trimmed, mentions named twice count once', () => {
    spec.given([started]).when(addNote(N1, '  @Bob and @Bob again  ', [BOB, BOB])).then([noteAdded(N1, '@Bob and @Bob again', [BOB])]);
  });

  it('a note needs a conversation, some text, and at most the text limit', () => {
    spec.given([]).when(addNote()).thenThrows('NOT_FOUND');
    spec.given([started]).when(addNote(N1, '   ', [])).thenThrows('VALIDATION_ERROR', /text/);
    spec.given([started]).when(addNote(N1, 'x'.repeat(NOTE_LIMITS.text + 1), [])).thenThrows('VALIDATION_ERROR', /4000/);
  });

  it('a note changes nothing the customer or the AI sees: the session, the queue and the assignee stay', () => {
    const before = [started].reduce(conversationDecider.evolve, conversationDecider.initialState);
    const after = conversationDecider.evolve(before, noteAdded());
    expect({ ...after, recentNotes: [] }).toEqual(before);
    expect(after.recentNotes).toEqual([N1]);
  });
});
