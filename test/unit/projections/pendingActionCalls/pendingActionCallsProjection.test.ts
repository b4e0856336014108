import { describe, it } from 'vitest';
import { pendingActionCallsProjection } from '../../../../src/projections/pendingActionCalls/pendingActionCallsProjection.js';
import { at, conversationEvents } from '../../../support/conversationEvents.js';
import { projectionSpec, recorded } from '../../../support/projectionSpec.js';

const CALL = '55555555-5555-4555-8555-555555555555';
const NEXT_CALL = '66666666-6666-4666-8666-666666666666';
const HOLD = '44444444-4444-4444-8444-444444444444';
const { company, conversation, stream } = conversationEvents();
const metadata = { companyId: company };
const approvalRequested = (callId: string, expiresAt: string) =>
  recorded(stream, 'ActionApprovalRequested', { callId, messageId: HOLD, holdingReply: 'A teammate decides.', approverRoles: null, expiresAt, at: at(1) }, { metadata });
const asked = (callId: string, expiresAt: string) => recorded(stream, 'ActionConfirmationAsked', { callId, messageId: HOLD, prompt: 'Cancel? Reply yes.', expiresAt, at: at(1) }, { metadata });

describe('pending action calls projection', () => {
  const spec = projectionSpec(pendingActionCallsProjection);

  it('given an approval asked for, then the call waits with its deadline, one per conversation', async () => {
    await spec.given([approvalRequested(CALL, at(9))]).then({
      pending_action_calls: [{ id: conversation, callId: CALL, conversationId: conversation, companyId: company, mode: 'approve', expiresAt: at(9) }],
    });
  });

  it('given a newer wait in the same conversation, then it replaces the older one', async () => {
    await spec.given([approvalRequested(CALL, at(9)), asked(NEXT_CALL, at(8))]).then({
      pending_action_calls: [{ id: conversation, callId: NEXT_CALL, conversationId: conversation, companyId: company, mode: 'confirm', expiresAt: at(8) }],
    });
  });

  it('given the wait ended (approved, declined, expired), then nothing waits; the end of another call leaves it', async () => {
    await spec.given([approvalRequested(CALL, at(9)), recorded(stream, 'ActionCallApproved', { callId: CALL, by: 'user:x', at: at(2) })]).then({ pending_action_calls: [] });
    await spec.given([asked(CALL, at(9)), recorded(stream, 'ActionCallDeclined', { callId: CALL, why: 'silence', at: at(2) })]).then({ pending_action_calls: [] });
    await spec.given([approvalRequested(CALL, at(9)), recorded(stream, 'ActionApprovalExpired', { callId: CALL, at: at(9) })]).then({ pending_action_calls: [] });
    await spec.given([approvalRequested(NEXT_CALL, at(9)), recorded(stream, 'ActionCallApproved', { callId: CALL, by: 'user:x', at: at(2) })]).then({
      pending_action_calls: [{ id: conversation, callId: NEXT_CALL, conversationId: conversation, companyId: company, mode: 'approve', expiresAt: at(9) }],
    });
  });
});
