import type { CreditEvent } from './events.js';

export type CreditState = { balanceMicros: number; chargedReplies: string[] };

export const initialCreditState: CreditState = { balanceMicros: 0, chargedReplies: [] };

export function evolveCredits(state: CreditState, event: CreditEvent): CreditState {
  switch (event.type) {
    case 'CreditsGranted':
      return { ...state, balanceMicros: state.balanceMicros + event.data.amountMicros };
    case 'CreditsConsumed':
      return {
        balanceMicros: state.balanceMicros - event.data.amountMicros,
        // A bounded window of charged replies; an older redelivered charge is refused by the store's unique
        // index on its deterministic event id (see chargeUsage).
        chargedReplies: [...state.chargedReplies.slice(-199), event.data.replyId],
      };
  }
}
