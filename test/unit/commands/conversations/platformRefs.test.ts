import { describe, expect, it } from 'vitest';
import { withDeterministicIds } from '../../../../src/commands/conversations/conversationIds.js';
import { deterministicId } from '../../../../src/commands/hashing.js';
import type { ConversationCommand } from '../../../../src/domain/conversations/decider.js';
import type { ConversationEvent } from '../../../../src/domain/conversations/events.js';
import { specFor } from '../../../support/gwt.js';

/** A delivery's events get ids derived from its dedupe key, so a redelivery appends the same ids and the store refuses them. */
const CONV = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const CO = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const S1 = '51515151-5151-4515-8515-515151515151';
const M1 = '11111111-1111-4111-8111-111111111111';
const M2 = '22222222-2222-4222-8222-222222222222';
const STAGE = '44444444-4444-4444-8444-444444444444';
const T = '2026-01-01T00:00:00.000Z';
const SEED = 'msg:7:913';

const start = { conversationId: CONV, companyId: CO, integrationId: 7, connectorType: 'msgplatform' as const, customer: { clientId: 42, channelId: 1, transport: 'telegram' }, defaultStageId: STAGE };
const receive = (messageId: string, dedupeKey: string): ConversationCommand => ({
  type: 'ReceiveCustomerMessage',
  start,
  sessionId: S1,
  messageId,
  dedupeKey,
  dedupeUntil: null,
  text: 'Do you ship to Berlin?',
  platform: { messageId: 913 },
  now: T,
});
const started: ConversationEvent = { type: 'ConversationStarted', data: { conversationId: CONV, companyId: CO, integrationId: 7, connectorType: 'msgplatform', customer: start.customer, stageId: STAGE, at: T } };
const opened: ConversationEvent = { type: 'AiSessionOpened', data: { sessionId: S1, at: T } };
const received = (messageId: string, dedupeKey: string): ConversationEvent => ({
  type: 'MessageReceived',
  data: { messageId, dedupeKey, dedupeUntil: null, text: 'Do you ship to Berlin?', platform: { messageId: 913 }, at: T },
});
const idOf = (type: ConversationEvent['type'], seed = SEED) => deterministicId(`${seed}:${type}`);

describe('withDeterministicIds: delivery event ids keyed by the dedupe key and the event type', () => {
  const spec = specFor(withDeterministicIds(SEED));

  it('a first delivery gives each event an id derived from the seed and its type', () => {
    spec.given([]).when(receive(M1, SEED)).then([
      { ...started, id: idOf('ConversationStarted') },
      { ...opened, id: idOf('AiSessionOpened') },
      { ...received(M1, SEED), id: idOf('MessageReceived') },
    ]);
  });

  it('a late redelivery decided on a newer state (no ConversationStarted this time) keeps its MessageReceived id', () => {
    // Another message started the conversation meanwhile: the redelivery decides one event, not three,
    // and only an id keyed by type (not by position) still matches the one already stored.
    spec.given([started, opened, received(M2, 'msg:7:914')]).when(receive(M1, SEED)).then([{ ...received(M1, SEED), id: idOf('MessageReceived') }]);
  });

  it('another delivery (another seed) gets other ids', () => {
    const [event] = withDeterministicIds('msg:7:914').decide(receive(M2, 'msg:7:914'), [started, opened].reduce(withDeterministicIds(SEED).evolve, withDeterministicIds(SEED).initialState));
    expect(event?.id).toBe(idOf('MessageReceived', 'msg:7:914'));
    expect(event?.id).not.toBe(idOf('MessageReceived'));
  });
});
