import type { PlatformId } from '../../platformId.js';
import type { DeliveredTo } from '../events.js';
import type { SendEvent } from './events.js';

/** What the channel answered when it accepted the message; null while it has not. */
export type SendState = { accepted: { platformMessageId: PlatformId | null; deliveredTo: DeliveredTo } | null };

export const initialSendState: SendState = { accepted: null };

export const evolveSend = (state: SendState, event: SendEvent): SendState =>
  state.accepted ? state : { accepted: { platformMessageId: event.data.platformMessageId, deliveredTo: event.data.deliveredTo } };
