import { describe, expect, it } from 'vitest';
import { NOTIFICATIONS, notificationsProjection } from '../../../../src/projections/notifications/notificationsProjection.js';
import { at, conversationEvents, m } from '../../../support/conversationEvents.js';
import { projectionSpec, recorded } from '../../../support/projectionSpec.js';

const OWNER = '0a0a0a0a-0a0a-40a0-80a0-0a0a0a0a0a0a';
const ADMIN = '0b0b0b0b-0b0b-40b0-80b0-0b0b0b0b0b0b';
const AGENT = '0c0c0c0c-0c0c-40c0-80c0-0c0c0c0c0c0c';
const E1 = 'e1e1e1e1-e1e1-4e1e-8e1e-e1e1e1e1e1e1';
const E2 = 'e2e2e2e2-e2e2-4e2e-8e2e-e2e2e2e2e2e2';
const NOTE = '9a9a9a9a-9a9a-49a9-89a9-9a9a9a9a9a9a';
const { company, conversation, stream, started, received } = conversationEvents();
const team = `team-${company}`;
const joined = (userId: string, role: 'owner' | 'admin' | 'agent') => recorded(team, 'TeamMemberJoined', { userId, email: `${role}@acme.test`, name: role, role, at: at(0), invitationId: null });
const assigned = (assigneeId: string, by: string, id = E1) => recorded(stream, 'ConversationAssigned', { assigneeId, previousAssigneeId: null, by, at: at(2) }, { id });
const note = (mentions: string[], id = E2) => recorded(stream, 'NoteAdded', { noteId: NOTE, authorId: OWNER, text: '@agent look', mentions, at: at(3) }, { id });
const humanRequested = (id: string) => recorded(stream, 'HumanRequested', { messageId: m(1), at: at(4) }, { id });
const notification = (id: string, userId: string, fields: Record<string, unknown>) =>
  expect.objectContaining({ id, companyId: company, userId, conversationId: conversation, customerName: expect.any(String), read: false, seq: expect.any(Number), ...fields });

describe('notifications projection: what each teammate hears of in the dashboard', () => {
  const spec = projectionSpec(notificationsProjection);

  it('given a conversation assigned by someone else, then the assignee has an unread notification; taking it yourself gives none', async () => {
    await spec.given([started, assigned(AGENT, `user:${OWNER}`)]).then({ [NOTIFICATIONS]: [notification(`${E1}:${AGENT}`, AGENT, { kind: 'assigned', byUserId: OWNER, excerpt: null })] });
    await spec.given([started, assigned(AGENT, `user:${AGENT}`)]).then({ [NOTIFICATIONS]: [] });
    await spec.given([started, assigned(AGENT, 'auto-assignment')]).then({ [NOTIFICATIONS]: [notification(`${E1}:${AGENT}`, AGENT, { kind: 'assigned', byUserId: null })] });
  });

  it('given a note mentioning teammates, then each one but its author is notified with its opening', async () => {
    await spec.given([started, note([AGENT, OWNER])]).then({ [NOTIFICATIONS]: [notification(`${E2}:${AGENT}`, AGENT, { kind: 'mentioned', byUserId: OWNER, excerpt: '@agent look' })] });
  });

  it('given a handoff nobody has, then the owners and admins (not the agents) are notified; given an assignee, only they are', async () => {
    const members = [joined(OWNER, 'owner'), joined(ADMIN, 'admin'), joined(AGENT, 'agent')];
    await spec.given([...members, started, received(1, 1), humanRequested(E1)]).then({
      [NOTIFICATIONS]: [notification(`${E1}:${OWNER}`, OWNER, { kind: 'handoff_waiting', byUserId: null }), notification(`${E1}:${ADMIN}`, ADMIN, { kind: 'handoff_waiting' })],
    });
    await spec.given([...members, started, received(1, 1), assigned(AGENT, 'auto-assignment', E2), humanRequested(E1)]).then({
      [NOTIFICATIONS]: [notification(`${E2}:${AGENT}`, AGENT, { kind: 'assigned' }), notification(`${E1}:${AGENT}`, AGENT, { kind: 'handoff_waiting' })],
    });
  });

  it('given the teammate read a notification, then it is read; another teammate reading the id changes nothing', async () => {
    const read = (userId: string) => recorded(`notification-reads-${userId}`, 'NotificationsRead', { userId, companyId: company, notificationIds: [`${E1}:${AGENT}`], at: at(5) });
    await spec.given([started, assigned(AGENT, `user:${OWNER}`), read(AGENT)]).then({ [NOTIFICATIONS]: [expect.objectContaining({ id: `${E1}:${AGENT}`, read: true })] });
    await spec.given([started, assigned(AGENT, `user:${OWNER}`), read(OWNER)]).then({ [NOTIFICATIONS]: [expect.objectContaining({ id: `${E1}:${AGENT}`, read: false })] });
  });
});
