import type { Decider } from '../../decider.js';
import type { ChargeEvent } from './events.js';
import { evolveCharge, initialChargeState, type ChargeState } from './state.js';

export type ChargeCommand = { type: 'AttemptCharge'; replyId: string; companyId: string; debitRevision: bigint; now: string };

export const chargeDecider: Decider<ChargeCommand, ChargeEvent, ChargeState> = {
  initialState: initialChargeState,
  evolve: evolveCharge,
  // Another attempt at the revision already recorded needs no new record: both land there or nowhere.
  decide: (command, state) =>
    state.debitRevision === command.debitRevision
      ? []
      : [
          {
            type: 'ChargeAttempted',
            data: { replyId: command.replyId, companyId: command.companyId, debitRevision: command.debitRevision.toString(), at: command.now },
          },
        ],
};

/** `charge-<replyId>`: the guard of one reply's charge. */
export const chargeStream = (replyId: string) => `charge-${replyId}`;
