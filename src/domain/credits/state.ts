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
        // A bounded window of recently charged replies; an older redelivered charge is recognised by the reply's
        // charge guard (domain/credits/charge, commands/credits/chargeUsage), on every event store.
        chargedReplies: [...state.chargedReplies.slice(-199), event.data.replyId],
      };
  }
}
