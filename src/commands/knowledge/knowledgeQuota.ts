import { knowledgeDocumentDecider, knowledgeDocumentStream } from '../../domain/knowledge/documents/decider.js';
import { knowledgeQuotaDecider, knowledgeQuotaStream, type KnowledgeQuotaCommand, type KnowledgeQuotaLimits } from '../../domain/knowledge/quota/decider.js';
import { staleReservations } from '../../domain/knowledge/quota/state.js';
import { deterministicId } from '../hashing.js';
import { handleCommand, loadState } from '../handleCommand.js';
import type { CommandDeps } from '../deps.js';

/**
 * The company's knowledge-base quota stream (`kbquota-<companyId>`, domain/knowledge/quota/). A repeated
 * reservation, confirmation or release (a retry, two processes reclaiming the same stale reservation, a
 * repeated DELETE) is decided on the quota's state, which knows the documents it counts, so it changes
 * nothing on every engine. Every event's id still derives from the document it concerns and what happened
 * to it, so an append retried at the same expected revision is recognised too.
 */
const quotaDecider = {
  ...knowledgeQuotaDecider,
  decide: (command: KnowledgeQuotaCommand, state: Parameters<typeof knowledgeQuotaDecider.decide>[1]) =>
    knowledgeQuotaDecider.decide(command, state).map((e) => ({
      ...e,
      // A resize is one per edit (and one more for its undo), not one per document.
      id: deterministicId(
        e.type === 'KnowledgeQuotaResized' ? `kbquota:${e.type}:${e.data.documentId}:${e.data.editId}${e.data.undo ? ':undo' : ''}` : `kbquota:${e.type}:${e.data.documentId}`,
      ),
    })),
};

type Actor = { companyId: string; userId: string };

const quotaCommand = (deps: CommandDeps, actor: Actor, command: KnowledgeQuotaCommand) =>
  handleCommand(deps.eventStore, knowledgeQuotaStream(actor.companyId), quotaDecider, command, {
    metadata: { companyId: actor.companyId, actor: `user:${actor.userId}` },
  });

/**
 * Reserves one document slot and `bytes` of content for `documentId`, or throws QUOTA_EXCEEDED. Stale pending
 * reservations (their upload died between reserving and storing: see reclaimStale) are settled first, so a
 * crash never holds quota for good.
 */
export async function reserveKnowledgeQuota(deps: CommandDeps, actor: Actor, input: { documentId: string; bytes: number; limits: KnowledgeQuotaLimits }) {
  await reclaimStale(deps, actor);
  await quotaCommand(deps, actor, { type: 'ReserveKnowledgeQuota', ...input, now: deps.clock.now().toISOString() });
}

export const confirmKnowledgeQuota = (deps: CommandDeps, actor: Actor, documentId: string) =>
  quotaCommand(deps, actor, { type: 'ConfirmKnowledgeQuota', documentId, now: deps.clock.now().toISOString() });

export const releaseKnowledgeQuota = (deps: CommandDeps, actor: Actor, input: { documentId: string; bytes: number; reason: 'deleted' | 'failed' | 'abandoned' }) =>
  quotaCommand(deps, actor, { type: 'ReleaseKnowledgeQuota', ...input, now: deps.clock.now().toISOString() });

export const resizeKnowledgeQuota = (
  deps: CommandDeps,
  actor: Actor,
  input: { documentId: string; editId: string; deltaBytes: number; undo?: boolean; limits: KnowledgeQuotaLimits },
) => quotaCommand(deps, actor, { type: 'ResizeKnowledgeQuota', ...input, now: deps.clock.now().toISOString() });

/**
 * Settles every reservation pending for longer than any upload takes. Its document stream decides: first an
 * AbandonKnowledgeDocument on it (appended only while the stream is still empty, under its expected
 * revision), so an upload that is merely slow and appends later is refused rather than storing content no
 * quota counts. Then the document is confirmed if it was stored after all, or its reservation released.
 * Each step is idempotent, so a crash in between is settled by the next reservation.
 */
async function reclaimStale(deps: CommandDeps, actor: Actor) {
  const { state } = await loadState(deps.eventStore, knowledgeQuotaStream(actor.companyId), knowledgeQuotaDecider);
  for (const documentId of staleReservations(state, deps.clock.now())) {
    const doc = await handleCommand(deps.eventStore, knowledgeDocumentStream(documentId), knowledgeDocumentDecider, {
      type: 'AbandonKnowledgeDocument',
      companyId: actor.companyId,
      now: deps.clock.now().toISOString(),
    });
    const bytes = state.pending[documentId]!.bytes;
    if (doc.state.status === 'active') await confirmKnowledgeQuota(deps, actor, documentId);
    else await releaseKnowledgeQuota(deps, actor, { documentId, bytes, reason: doc.state.status === 'deleted' ? 'deleted' : 'abandoned' });
    deps.logger.warn({ companyId: actor.companyId, documentId, stored: doc.state.status !== 'abandoned' }, 'knowledge quota: settled a stale reservation');
  }
}
