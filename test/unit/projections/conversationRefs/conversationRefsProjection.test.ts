import { describe, it } from 'vitest';
import { conversationRefsProjection, refId } from '../../../../src/projections/conversationRefs/conversationRefsProjection.js';
import { at, conversationEvents, m } from '../../../support/conversationEvents.js';
import { projectionSpec, recorded } from '../../../support/projectionSpec.js';

const stage = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b0001';
const customer = { clientId: 'client-7', channelId: 3, transport: 'telegram', name: 'Ada' };
const { company, conversation, stream, started, received } = conversationEvents({ stageId: stage, customer });

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
