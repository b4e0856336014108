import { describe, expect, it } from 'vitest';
import { publicEventId } from '../../../../src/projections/publicEvents/derive.js';
import { publicEventsProjection } from '../../../../src/projections/publicEvents/publicEventsProjection.js';
import { projectionSpec, recorded } from '../../../support/projectionSpec.js';

const acme = '0b7e2a52-54a3-4a4f-9a53-3c1c3e0f0001';
const globex = '0b7e2a52-54a3-4a4f-9a53-3c1c3e0f0002';
const conv = 'cccccccc-0000-4000-8000-000000000001';
const msg = 'dddddddd-0000-4000-8000-000000000001';
const at = (s: number) => `2026-01-01T10:00:0${s}.000Z`;
const started = (companyId: string, conversationId: string) =>
  recorded(`conversation-${conversationId}`, 'ConversationStarted', { conversationId, companyId, integrationId: 1, connectorType: 'webchat', customer: { clientId: 'v1', channelId: null, transport: 'webchat' }, stageId: null, at: at(0) }, { id: `ev-start-${conversationId}` });

describe('publicEvents projection', () => {
  const spec = projectionSpec(publicEventsProjection);

  it('numbers each company\'s public events 1, 2, 3 … in log order, in buckets, and remembers the balance', async () => {
    const other = 'cccccccc-0000-4000-8000-000000000002';
    await spec
      .given([
        started(acme, conv),
        started(globex, other),
        recorded(`conversation-${conv}`, 'MessageReceived', { messageId: msg, dedupeKey: 'msg:1', dedupeUntil: null, text: 'Hi', platform: {}, at: at(1) }, { id: 'ev-msg', metadata: { companyId: acme } }),
        recorded(`credits-${acme}`, 'CreditsGranted', { amountMicros: 5_000_000, reason: 'signup', grantedBy: null, at: at(2) }),
      ])
      .then({
        public_events: [
          expect.objectContaining({ id: `${acme}:1`, companyId: acme, n: 1, bucket: 0, type: 'conversation.started', conversationId: conv, event: expect.objectContaining({ id: publicEventId(`ev-start-${conv}`, 'conversation.started') }) }),
          expect.objectContaining({ id: `${globex}:1`, companyId: globex, n: 1, type: 'conversation.started' }),
          expect.objectContaining({ id: `${acme}:2`, n: 2, type: 'message.received', event: expect.objectContaining({ data: { conversationId: conv, messageId: msg, text: 'Hi', attachmentCount: 0, receivedAt: at(1) } }) }),
        ],
        public_event_feeds: [
          { id: acme, lastN: 2, balanceMicros: 5_000_000, lowThresholdMicros: 1_000_000 },
          { id: globex, lastN: 1, balanceMicros: 0, lowThresholdMicros: 1_000_000 },
        ],
      });
  });
});
