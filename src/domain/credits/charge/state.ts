import type { ChargeEvent } from './events.js';

/** Where the last attempt put (or tried to put) the charge in the credits stream; null before any attempt. */
export type ChargeState = { debitRevision: bigint | null };

export const initialChargeState: ChargeState = { debitRevision: null };

export const evolveCharge = (_state: ChargeState, event: ChargeEvent): ChargeState => ({ debitRevision: BigInt(event.data.debitRevision) });
