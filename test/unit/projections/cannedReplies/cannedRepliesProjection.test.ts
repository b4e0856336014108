import { describe, it } from 'vitest';
import { cannedRepliesProjection } from '../../../../src/projections/cannedReplies/cannedRepliesProjection.js';
import { projectionSpec, recorded } from '../../../support/projectionSpec.js';

const company = '0b7e2a52-54a3-4a4f-9a53-3c1c3e0f0001';
const at = (s: number) => `2025-01-01T10:00:0${s}.000Z`;

describe('cannedReplies projection', () => {
  const spec = projectionSpec(cannedRepliesProjection);
  const s = `cannedreplies-${company}`;
  const r = (n: number) => `bbbbbbbb-0000-4000-8000-00000000000${n}`;

  it('lists created replies with their edits; deleted ones leave', async () => {
    await spec
      .given([
        recorded(s, 'CannedReplyCreated', { cannedReplyId: r(1), companyId: company, shortcut: 'hello', title: 'Hello', text: 'Hi there', by: 'user:u1', at: at(0) }),
        recorded(s, 'CannedReplyCreated', { cannedReplyId: r(2), companyId: company, shortcut: 'bye', title: 'Bye', text: 'Goodbye', by: 'user:u1', at: at(1) }),
        recorded(s, 'CannedReplyUpdated', { cannedReplyId: r(1), changes: { text: 'Hi there!' }, by: 'user:u2', at: at(2) }),
        recorded(s, 'CannedReplyDeleted', { cannedReplyId: r(2), by: 'user:u1', at: at(3) }),
      ])
      .then({
        canned_replies: [{ id: r(1), companyId: company, shortcut: 'hello', title: 'Hello', text: 'Hi there!', createdAt: at(0), updatedAt: at(2) }],
      });
  });
});
