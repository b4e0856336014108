import { describe, it } from 'vitest';
import { followUpReplyId } from '../../../../src/domain/conversations/actionCalls.js';
import { actionResumesProjection } from '../../../../src/projections/actionResumes/actionResumesProjection.js';
import { at, conversationEvents, m } from '../../../support/conversationEvents.js';
import { projectionSpec, recorded } from '../../../support/projectionSpec.js';

const CALL = '55555555-5555-4555-8555-555555555555';
const NEXT_CALL = '66666666-6666-4666-8666-666666666666';
const SESSION = '77777777-7777-4777-8777-777777777777';
const { company, conversation, stream } = conversationEvents();
const metadata = { companyId: company };
const approved = (callId: string) => recorded(stream, 'ActionCallApproved', { callId, by: 'user:x', at: at(2) }, { metadata });
const refused = (callId: string) => recorded(stream, 'ActionCallRefused', { callId, by: 'user:x', reason: null, at: at(3) }, { metadata });
const replied = (messageId: string) =>
  recorded(stream, 'AgentReplied', { messageId, sessionId: SESSION, agentId: null, text: 'Done.', inReplyTo: [m(1)], model: 'm', inputTokens: 1, outputTokens: 1, handoff: false, at: at(4) }, { metadata });
const owed = (...calls: [string, string][]) => ({
  id: conversation,
  conversationId: conversation,
  companyId: company,
  calls: calls.map(([callId, decidedAt]) => ({ callId, followUpId: followUpReplyId(callId), decidedAt })),
});

describe('action resumes projection: the follow-ups a teammate’s decision still owes the customer', () => {
  const spec = projectionSpec(actionResumesProjection);

  it('given a call approved and another refused, then both follow-ups are owed', async () => {
    await spec.given([approved(CALL), refused(NEXT_CALL)]).then({ action_resumes: [owed([CALL, at(2)], [NEXT_CALL, at(3)])] });
  });

  it('given the follow-up of one is written, then only the other is owed; once both are, nothing is', async () => {
    await spec.given([approved(CALL), refused(NEXT_CALL), replied(followUpReplyId(CALL))]).then({ action_resumes: [owed([NEXT_CALL, at(3)])] });
    await spec.given([approved(CALL), replied(followUpReplyId(CALL))]).then({ action_resumes: [] });
  });

  it('given any other answer of the agent, then the follow-up is still owed', async () => {
    await spec.given([approved(CALL), replied(m(5))]).then({ action_resumes: [owed([CALL, at(2)])] });
  });

  it('given the AI paused or closed in the conversation, then nothing is owed (the people there answer)', async () => {
    await spec.given([approved(CALL), recorded(stream, 'AiSessionPaused', { sessionId: SESSION, reason: 'handoff', by: null, at: at(5) })]).then({ action_resumes: [] });
    await spec
      .given([refused(CALL), recorded(stream, 'AiSessionClosed', { sessionId: SESSION, reason: 'api', action: 'session_close', by: null, at: at(5) })])
      .then({ action_resumes: [] });
  });
});
