import { describe, it } from 'vitest';
import { conversationRefsProjection, refId } from '../../../../src/projections/conversationRefs/conversationRefsProjection.js';
import { projectionSpec, recorded } from '../../../support/projectionSpec.js';

const company = '0b7e2a52-54a3-4a4f-9a53-3c1c3e0f0001';
const conversation = '6f1c7d2e-8a1b-4c3d-9e4f-5a6b7c8d0001';
const stream = `conversation-${conversation}`;
const stage = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b0001';
const m = (n: number) => `aaaaaaaa-0000-4000-8000-00000000000${n}`;
const at = (s: number) => `2025-01-01T10:00:0${s}.000Z`;
const customer = { clientId: 'client-7', channelId: 3, transport: 'telegram', name: 'Ada' };

const started = recorded(stream, 'ConversationStarted', {
  conversationId: conversation,
  companyId: company,
  integrationId: 12,
  connectorType: 'msgplatform',
  customer,
  stageId: stage,
  at: at(0),
});
const received = (n: number, s: number, platform: { requestId?: number; dialogId?: string } = {}) =>
  recorded(stream, 'MessageReceived', { messageId: m(n), dedupeKey: `k${n}`, dedupeUntil: null, text: `hello ${n}`, platform, at: at(s) });

describe('conversationRefs projection', () => {
  const spec = projectionSpec(conversationRefsProjection);

  it('maps the request and dialog ids that messages and transfers carried to their conversation', async () => {
    await spec
      .given([
        started,
        received(1, 1, { requestId: 501 }),
        recorded(stream, 'OperatorMessageRecorded', { messageId: m(2), dedupeKey: 'op', dedupeUntil: null, text: 'x', platform: { dialogId: 'dlg-9' }, at: at(2) }),
        recorded(stream, 'DialogTransferred', { action: 'session_transfer_external', dialogId: 'dlg-10', requestId: 502, at: at(3) }),
      ])
      .then({
        conversationRefs: [
          { id: refId(12, 'request', 501), conversationId: conversation },
          { id: refId(12, 'dialog', 'dlg-9'), conversationId: conversation },
          { id: refId(12, 'dialog', 'dlg-10'), conversationId: conversation },
          { id: refId(12, 'request', 502), conversationId: conversation },
        ],
      });
  });

  it('knows nothing of a conversation it never saw start', async () => {
    await spec.given([received(1, 1, { requestId: 501 })]).then({ conversationRefs: [] });
  });
});
