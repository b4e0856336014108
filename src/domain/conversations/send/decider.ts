import type { Decider } from '../../decider.js';
import type { PlatformId } from '../../platformId.js';
import type { DeliveredTo } from '../events.js';
import type { SendEvent } from './events.js';
import { evolveSend, initialSendState, type SendState } from './state.js';

export type SendCommand = {
  type: 'RecordSendAccepted';
  messageId: string;
  conversationId: string;
  platformMessageId: PlatformId | null;
  deliveredTo: DeliveredTo;
  now: string;
};

export const sendDecider: Decider<SendCommand, SendEvent, SendState> = {
  initialState: initialSendState,
  evolve: evolveSend,
  // The first acceptance is the one that counts: a repeated record (a redelivered job) adds nothing.
  decide: (command, state) =>
    state.accepted
      ? []
      : [
          {
            type: 'MessageSendAccepted',
            data: {
              messageId: command.messageId,
              conversationId: command.conversationId,
              platformMessageId: command.platformMessageId,
              deliveredTo: command.deliveredTo,
              at: command.now,
            },
          },
        ],
};

/** `send-<messageId>`: the guard of one outgoing message's send. */
export const sendStream = (messageId: string) => `send-${messageId}`;
