import { describe, it } from 'vitest';
import { cannedRepliesDecider } from '../../../../src/domain/cannedReplies/decider.js';
import { type CannedReplyEvent } from '../../../../src/domain/cannedReplies/events.js';
import { specFor } from '../../../support/gwt.js';

const spec = specFor(cannedRepliesDecider);
const company = '0b7e2a52-54a3-4a4f-9a53-3c1c3e0f0001';
const other = '0b7e2a52-54a3-4a4f-9a53-3c1c3e0f0002';
const id = (n: number) => `aaaaaaaa-0000-4000-8000-${String(n).padStart(12, '0')}`;
const at = '2025-01-01T10:00:00.000Z';
const create = (n: number, shortcut: string) =>
  ({ type: 'CreateCannedReply', companyId: company, cannedReplyId: id(n), shortcut, title: `Title ${n}`, text: `Text ${n}`, by: 'user:u1', now: at }) as const;
const created = (n: number, shortcut: string): CannedReplyEvent => ({
  type: 'CannedReplyCreated',
  data: { cannedReplyId: id(n), companyId: company, shortcut, title: `Title ${n}`, text: `Text ${n}`, by: 'user:u1', at },
});

describe('canned replies decider', () => {
  it('creates a reply', () => {
    spec.given([]).when(create(1, 'hello')).then([created(1, 'hello')]);
  });

  it('a shortcut already used is a CONFLICT, on create and on rename', () => {
    spec.given([created(1, 'hello')]).when(create(2, 'hello')).thenThrows('CONFLICT');
    spec
      .given([created(1, 'hello'), created(2, 'bye')])
      .when({ type: 'UpdateCannedReply', companyId: company, cannedReplyId: id(2), changes: { shortcut: 'hello' }, by: 'user:u1', now: at })
      .thenThrows('CONFLICT');
  });

  it('a deleted reply frees its shortcut', () => {
    const deleted: CannedReplyEvent = { type: 'CannedReplyDeleted', data: { cannedReplyId: id(1), by: 'user:u1', at } };
    spec.given([created(1, 'hello'), deleted]).when(create(2, 'hello')).then([created(2, 'hello')]);
  });

  it('the 201st reply is refused with QUOTA_EXCEEDED', () => {
    const history = Array.from({ length: 200 }, (_, i) => created(i + 1, `s${i}`));
    spec.given(history).when(create(999, 'one-more')).thenThrows('QUOTA_EXCEEDED');
  });

  it('a shortcut with spaces or capitals, an empty title or text over 4000 characters is a VALIDATION_ERROR', () => {
    spec.given([]).when(create(1, 'two words')).thenThrows('VALIDATION_ERROR');
    spec.given([]).when({ ...create(1, 'ok'), title: '' }).thenThrows('VALIDATION_ERROR');
    spec.given([]).when({ ...create(1, 'ok'), text: 'x'.repeat(4001) }).thenThrows('VALIDATION_ERROR');
  });

  it('an update records only what changed; no change, no event', () => {
    spec
      .given([created(1, 'hello')])
      .when({ type: 'UpdateCannedReply', companyId: company, cannedReplyId: id(1), changes: { shortcut: 'hello', text: 'New text' }, by: 'user:u2', now: at })
      .then([{ type: 'CannedReplyUpdated', data: { cannedReplyId: id(1), changes: { text: 'New text' }, by: 'user:u2', at } }]);
    spec
      .given([created(1, 'hello')])
      .when({ type: 'UpdateCannedReply', companyId: company, cannedReplyId: id(1), changes: { title: 'Title 1' }, by: 'user:u2', now: at })
      .then([]);
  });

  it("an unknown reply, or another company's stream, is NOT_FOUND", () => {
    spec.given([]).when({ type: 'DeleteCannedReply', companyId: company, cannedReplyId: id(5), by: 'user:u1', now: at }).thenThrows('NOT_FOUND');
    spec.given([created(1, 'hello')]).when({ type: 'DeleteCannedReply', companyId: other, cannedReplyId: id(1), by: 'user:u1', now: at }).thenThrows('NOT_FOUND');
  });
});
