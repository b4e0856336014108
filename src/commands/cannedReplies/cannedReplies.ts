import { randomUUID } from 'node:crypto';
import { cannedRepliesDecider, cannedRepliesStream, normaliseShortcut } from '../../domain/cannedReplies/decider.js';
import { type CannedReply } from '../../domain/cannedReplies/state.js';
import { type CannedReplyFields } from '../../domain/cannedReplies/events.js';
import type { EventStore } from '../../ports/eventStore.js';
import { handleCommand, loadState } from '../handleCommand.js';
import type { CommandDeps } from '../deps.js';

/** Create, update and delete a company's canned replies (one `cannedreplies-<companyId>` stream). */

type Actor = { companyId: string; userId: string };
const metadataOf = (input: Actor) => ({ companyId: input.companyId, actor: `user:${input.userId}` });

export async function createCannedReply(deps: CommandDeps, input: Actor & CannedReplyFields) {
  const cannedReplyId = randomUUID();
  const result = await handleCommand(
    deps.eventStore,
    cannedRepliesStream(input.companyId),
    cannedRepliesDecider,
    {
      type: 'CreateCannedReply',
      companyId: input.companyId,
      cannedReplyId,
      shortcut: normaliseShortcut(input.shortcut),
      title: input.title,
      text: input.text,
      by: `user:${input.userId}`,
      now: deps.clock.now().toISOString(),
    },
    { metadata: metadataOf(input) },
  );
  return { ...result, cannedReply: result.state.replies.get(cannedReplyId)! };
}

export async function updateCannedReply(deps: CommandDeps, input: Actor & { cannedReplyId: string; changes: Partial<CannedReplyFields> }) {
  const changes = { ...input.changes, ...(input.changes.shortcut !== undefined ? { shortcut: normaliseShortcut(input.changes.shortcut) } : {}) };
  const result = await handleCommand(
    deps.eventStore,
    cannedRepliesStream(input.companyId),
    cannedRepliesDecider,
    { type: 'UpdateCannedReply', companyId: input.companyId, cannedReplyId: input.cannedReplyId, changes, by: `user:${input.userId}`, now: deps.clock.now().toISOString() },
    { metadata: metadataOf(input) },
  );
  return { ...result, cannedReply: result.state.replies.get(input.cannedReplyId)! };
}

export async function deleteCannedReply(deps: CommandDeps, input: Actor & { cannedReplyId: string }) {
  return handleCommand(
    deps.eventStore,
    cannedRepliesStream(input.companyId),
    cannedRepliesDecider,
    { type: 'DeleteCannedReply', companyId: input.companyId, cannedReplyId: input.cannedReplyId, by: `user:${input.userId}`, now: deps.clock.now().toISOString() },
    { metadata: metadataOf(input) },
  );
}

/** One canned reply as stored now, or null (the stream is the company's own, so no other company's reply is reachable). */
export async function loadCannedReply(eventStore: EventStore, companyId: string, cannedReplyId: string): Promise<CannedReply | null> {
  const { state } = await loadState(eventStore, cannedRepliesStream(companyId), cannedRepliesDecider);
  return state.replies.get(cannedReplyId) ?? null;
}
