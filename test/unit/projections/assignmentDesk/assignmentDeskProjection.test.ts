import { describe, expect, it } from 'vitest';
import { assignmentDeskProjection } from '../../../../src/projections/assignmentDesk/assignmentDeskProjection.js';
import { at, conversationEvents } from '../../../support/conversationEvents.js';
import { projectionSpec, recorded } from '../../../support/projectionSpec.js';

const session = '1d2c3b4a-5f6e-4d7c-8b9a-0f1e2d3c0001';
const ANN = 'a0a0a0a0-a0a0-40a0-80a0-a0a0a0a0a0a0';
const BOB = 'b0b0b0b0-b0b0-40b0-80b0-b0b0b0b0b0b0';
const { company, conversation, stream, started, opened, received } = conversationEvents();
const team = `team-${company}`;
const joined = (userId: string, s: number) => recorded(team, 'TeamMemberJoined', { userId, email: `${userId.slice(0, 3)}@desk.example`, name: null, role: 'agent', at: at(s), invitationId: null });
const handedOff = [
  started,
  opened(session),
  received(1, 1),
  recorded(stream, 'AgentReplied', { messageId: 'aaaaaaaa-0000-4000-8000-000000000009', sessionId: session, agentId: null, text: 'A colleague will answer.', inReplyTo: ['aaaaaaaa-0000-4000-8000-000000000001'], model: 'builtin', inputTokens: 0, outputTokens: 0, handoff: true, at: at(2) }),
];
const assigned = (assigneeId: string, previousAssigneeId: string | null, s: number) => recorded(stream, 'ConversationAssigned', { assigneeId, previousAssigneeId, by: 'auto-assignment', reason: 'auto', at: at(s) });
const teammate = (id: string, fields: Record<string, unknown>) => ({ id, companyId: company, member: true, availability: 'online', open: 0, lastAssignedAt: null, ...fields });

describe('assignment desk projection', () => {
  const spec = projectionSpec(assignmentDeskProjection);

  it('given a handed-off conversation nobody owns, then it waits in the queue since the customer wrote', async () => {
    await spec.given([joined(ANN, 0), ...handedOff]).then({
      deskConversations: [expect.objectContaining({ id: conversation, companyId: company, assigneeId: null, open: true, waiting: true, waitingSince: at(1) })],
      deskTeammates: [teammate(ANN, {})],
    });
  });

  it('given it is assigned, then it leaves the queue and counts as one open conversation of its owner, who was given one last then', async () => {
    await spec.given([joined(ANN, 0), ...handedOff, assigned(ANN, null, 3)]).then({
      deskConversations: [expect.objectContaining({ id: conversation, assigneeId: ANN, waiting: false, waitingSince: null })],
      deskTeammates: [teammate(ANN, { open: 1, lastAssignedAt: at(3) })],
    });
  });

  it('reassigning moves the place; closing frees it; reopening takes it again', async () => {
    await spec.given([joined(ANN, 0), joined(BOB, 0), ...handedOff, assigned(ANN, null, 3), assigned(BOB, ANN, 4)]).then({
      deskTeammates: [teammate(ANN, { open: 0, lastAssignedAt: at(3) }), teammate(BOB, { open: 1, lastAssignedAt: at(4) })],
    });
    const closed = recorded(stream, 'AiSessionClosed', { sessionId: session, reason: 'api', action: 'session_close', by: `user:${ANN}`, at: at(5) });
    await spec.given([joined(ANN, 0), ...handedOff, assigned(ANN, null, 3), closed]).then({
      deskConversations: [expect.objectContaining({ open: false, waiting: false })],
      deskTeammates: [teammate(ANN, { open: 0, lastAssignedAt: at(3) })],
    });
    const reopened = recorded(stream, 'ConversationReopened', { sessionId: '1d2c3b4a-5f6e-4d7c-8b9a-0f1e2d3c0002', previousSessionId: session, by: `user:${ANN}`, at: at(6) });
    await spec.given([joined(ANN, 0), ...handedOff, assigned(ANN, null, 3), closed, reopened]).then({ deskTeammates: [teammate(ANN, { open: 1, lastAssignedAt: at(3) })] });
  });

  it('unassigning frees the place and puts a conversation still handed off back in the queue', async () => {
    await spec.given([joined(ANN, 0), ...handedOff, assigned(ANN, null, 3), recorded(stream, 'ConversationUnassigned', { previousAssigneeId: ANN, by: `user:${ANN}`, at: at(4) })]).then({
      deskConversations: [expect.objectContaining({ assigneeId: null, waiting: true, waitingSince: at(1) })],
      deskTeammates: [teammate(ANN, { open: 0, lastAssignedAt: at(3) })],
    });
  });

  it('a teammate stepping away, a removed teammate and the company settings are recorded', async () => {
    await spec
      .given([
        joined(ANN, 0),
        joined(BOB, 0),
        recorded(`availability-${ANN}`, 'AvailabilitySet', { userId: ANN, companyId: company, availability: 'away', previous: 'online', at: at(1) }),
        recorded(team, 'TeamMemberRemoved', { userId: BOB, by: ANN, at: at(2) }),
        recorded(`auto-assignment-${company}`, 'AutoAssignmentConfigured', { enabled: true, capacity: 2, by: `user:${ANN}`, at: at(3) }),
      ])
      .then({
        deskTeammates: [teammate(ANN, { availability: 'away' }), teammate(BOB, { member: false })],
        deskSettings: [{ id: company, enabled: true, capacity: 2 }],
      });
  });

  it("given it is routed to a support team, then it waits in that team's queue (and in the no-team queue before)", async () => {
    const TEAM = 'e0e0e0e0-e0e0-40e0-80e0-e0e0e0e0e0e0';
    await spec.given([joined(ANN, 0), ...handedOff]).then({
      deskConversations: [expect.objectContaining({ id: conversation, integrationId: expect.any(Number), teamId: null, queue: '', waiting: true })],
      deskTeammates: [teammate(ANN, {})],
    });
    await spec.given([joined(ANN, 0), ...handedOff, recorded(stream, 'ConversationRoutedToTeam', { teamId: TEAM, previousTeamId: null, by: 'routing', at: at(3) })]).then({
      deskConversations: [expect.objectContaining({ id: conversation, teamId: TEAM, queue: TEAM, waiting: true, waitingSince: at(1) })],
      deskTeammates: [teammate(ANN, {})],
    });
  });
});
