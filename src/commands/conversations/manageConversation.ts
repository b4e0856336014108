import { randomUUID } from 'node:crypto';
import { companyDecider, companyStream } from '../../domain/company/decider.js';
import { conversationDecider, conversationStream, type ConversationCommand } from '../../domain/conversations/decider.js';
import { readMarkerDecider, readMarkerStream } from '../../domain/conversations/readMarker/decider.js';
import { DomainError } from '../../domain/errors.js';
import { operatorMessageKeyStream } from '../../domain/conversations/operatorMessageKey/events.js';
import { WrongExpectedRevisionError } from '../../ports/errors.js';
import { handleCommand, loadState } from '../handleCommand.js';
import type { CommandDeps } from '../deps.js';
import { findTeammate } from './teammates.js';
import { loadSupportTeams } from '../supportTeams/streamReads.js';

type Actor = { companyId: string; userId: string };

/** Runs a dashboard/API command on a conversation of the caller's company (another company's is NOT_FOUND). */
async function onConversation(deps: CommandDeps, actor: Actor, conversationId: string, command: ConversationCommand, actorName = `user:${actor.userId}`) {
  const stream = conversationStream(conversationId);
  const { state } = await loadState(deps.eventStore, stream, conversationDecider);
  if (!state.exists || state.companyId !== actor.companyId) throw new DomainError('NOT_FOUND', 'Conversation not found');
  return handleCommand(deps.eventStore, stream, conversationDecider, command, { metadata: { companyId: actor.companyId, actor: actorName } });
}

const now = (deps: CommandDeps) => deps.clock.now().toISOString();

export const pauseConversation = (deps: CommandDeps, actor: Actor, conversationId: string) =>
  onConversation(deps, actor, conversationId, { type: 'PauseSession', reason: 'api', by: `user:${actor.userId}`, now: now(deps) });

export const resumeConversation = (deps: CommandDeps, actor: Actor, conversationId: string) =>
  onConversation(deps, actor, conversationId, { type: 'ResumeSession', by: `user:${actor.userId}`, now: now(deps) });

/** Close, or resolve: close with a note of how it was resolved. */
export const closeConversation = (deps: CommandDeps, actor: Actor, conversationId: string, resolution?: string) =>
  onConversation(deps, actor, conversationId, { type: 'CloseSession', reason: 'api', by: `user:${actor.userId}`, ...(resolution ? { resolution } : {}), now: now(deps) });

/** A closed conversation gets a new active AI session (a random id, like the one a customer message would open). */
export const reopenConversation = (deps: CommandDeps, actor: Actor, conversationId: string) =>
  onConversation(deps, actor, conversationId, { type: 'ReopenConversation', sessionId: randomUUID(), by: `user:${actor.userId}`, now: now(deps) });

/**
 * `keyedId`: from the request's Idempotency-Key (idempotentStart.ts idForKey), so a request sent again after a
 * lost answer names the message already sent. Two guards, both kept by every engine: the key's own stream
 * (`opmsgkey-<id>`, appended with 'no_stream' once the message is stored), which answers a repeat however
 * late; and the conversation's decision on its recent sends under its expected revision, which covers
 * repeats racing the first request (before the key is recorded). A crash between storing the message and
 * recording the key leaves only the second guard, until the repeat records it.
 */
export async function sendOperatorMessage(deps: CommandDeps, actor: Actor, conversationId: string, text: string, keyedId?: string) {
  if (keyedId && (await keyRecorded(deps, keyedId))) {
    const { state, revision } = await loadConversationOf(deps, actor, conversationId);
    return { events: [], state, revision, position: null, duplicate: true, messageId: keyedId };
  }
  const messageId = keyedId ?? randomUUID();
  const result = await onConversation(deps, actor, conversationId, { type: 'SendOperatorMessage', messageId, text, by: `user:${actor.userId}`, now: now(deps) });
  if (keyedId) await recordKey(deps, actor, conversationId, keyedId);
  return { ...result, messageId };
}

async function keyRecorded(deps: CommandDeps, keyedId: string): Promise<boolean> {
  return (await deps.eventStore.readStream(operatorMessageKeyStream(keyedId), { maxCount: 1 })).length > 0;
}

async function recordKey(deps: CommandDeps, actor: Actor, conversationId: string, messageId: string): Promise<void> {
  const data = { messageId, conversationId, companyId: actor.companyId, at: now(deps) };
  try {
    // A fresh event id: a second request must meet the existing stream, never be taken for a retry of the first.
    await deps.eventStore.append(operatorMessageKeyStream(messageId), [{ id: randomUUID(), type: 'OperatorMessageKeyUsed', data, metadata: { companyId: actor.companyId, actor: `user:${actor.userId}` } }], 'no_stream');
  } catch (err) {
    if (err instanceof WrongExpectedRevisionError) return; // recorded by a request racing this one
    throw err;
  }
}

async function loadConversationOf(deps: CommandDeps, actor: Actor, conversationId: string) {
  const loaded = await loadState(deps.eventStore, conversationStream(conversationId), conversationDecider);
  if (!loaded.state.exists || loaded.state.companyId !== actor.companyId) throw new DomainError('NOT_FOUND', 'Conversation not found');
  return loaded;
}

export async function changeStage(deps: CommandDeps, actor: Actor, conversationId: string, stageId: string) {
  const { state: company } = await loadState(deps.eventStore, companyStream(actor.companyId), companyDecider);
  const validStageIds = company.exists ? (company.pipeline?.stages.map((s) => s.id) ?? []) : [];
  return onConversation(deps, actor, conversationId, { type: 'ChangeStage', stageId, validStageIds, by: `user:${actor.userId}`, now: now(deps) });
}

/** Gives the conversation to a teammate (a user of the caller's company; anyone else is refused). */
export async function assignConversation(deps: CommandDeps, actor: Actor, conversationId: string, assigneeId: string) {
  const assignee = await findTeammate(deps, actor.companyId, assigneeId);
  return onConversation(deps, actor, conversationId, { type: 'AssignConversation', assigneeId, assignee, by: `user:${actor.userId}`, now: now(deps) });
}

/** The name automatic assignment records as `by` (no person chose). */
export const AUTO_ASSIGNER = 'auto-assignment';

/**
 * Automatic assignment of a handed-off conversation to `assigneeId`, recorded with reason auto. Records nothing
 * when a person took it, it was resolved or it no longer waits for a human meanwhile (the decider checks).
 */
export async function autoAssignConversation(deps: CommandDeps, companyId: string, conversationId: string, assigneeId: string) {
  const assignee = await findTeammate(deps, companyId, assigneeId);
  const command: ConversationCommand = { type: 'AssignConversation', assigneeId, assignee, by: AUTO_ASSIGNER, reason: 'auto', now: now(deps) };
  return onConversation(deps, { companyId, userId: assigneeId }, conversationId, command, AUTO_ASSIGNER);
}

/** A teammate puts the conversation in a team of its company (null: the whole company). */
export async function routeConversationToTeam(deps: CommandDeps, actor: Actor, conversationId: string, teamId: string | null) {
  const teamExists = teamId !== null && (await loadSupportTeams(deps.eventStore, actor.companyId)).teams.has(teamId);
  return onConversation(deps, actor, conversationId, { type: 'RouteConversationToTeam', teamId, teamExists, ifUnrouted: false, by: `user:${actor.userId}`, now: now(deps) });
}

/**
 * Routing on a handoff: the team the integration's route names now (read from the teams' stream, so a route just
 * changed or a team just deleted counts); a team chosen before stays. Null when the integration has no route.
 */
export async function routeHandoffToTeam(deps: CommandDeps, companyId: string, conversationId: string, integrationId: number) {
  const teamId = (await loadSupportTeams(deps.eventStore, companyId)).routes.get(integrationId);
  if (!teamId) return null;
  const command: ConversationCommand = { type: 'RouteConversationToTeam', teamId, teamExists: true, ifUnrouted: true, by: 'routing', now: now(deps) };
  return onConversation(deps, { companyId, userId: 'routing' }, conversationId, command, 'routing');
}

/** A deleted team's conversation goes back to the whole company (nothing when it is in another team by now). */
export const unrouteFromDeletedTeam = (deps: CommandDeps, companyId: string, conversationId: string, teamId: string) =>
  onConversation(deps, { companyId, userId: 'routing' }, conversationId, { type: 'RouteConversationToTeam', teamId: null, teamExists: false, ifUnrouted: false, from: teamId, by: 'routing', now: now(deps) }, 'routing');

export const unassignConversation = (deps: CommandDeps, actor: Actor, conversationId: string) =>
  onConversation(deps, actor, conversationId, { type: 'UnassignConversation', by: `user:${actor.userId}`, now: now(deps) });

/**
 * The caller has seen the conversation's first `customerMessages` customer messages. Records nothing when that
 * is not news (domain/conversations/readMarker/events.ts says why this cannot flood the store). The caller checked the conversation is theirs.
 */
export const markConversationRead = (deps: CommandDeps, actor: Actor, conversationId: string, customerMessages: number) =>
  handleCommand(
    deps.eventStore,
    readMarkerStream(conversationId, actor.userId),
    readMarkerDecider,
    { type: 'MarkConversationRead', conversationId, companyId: actor.companyId, userId: actor.userId, customerMessages, now: now(deps) },
    { metadata: { companyId: actor.companyId, actor: `user:${actor.userId}` } },
  );
