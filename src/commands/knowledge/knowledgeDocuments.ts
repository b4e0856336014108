import { randomUUID } from 'node:crypto';
import { contentBytes } from '../../domain/knowledge/documents/content.js';
import { knowledgeDocumentDecider, knowledgeDocumentStream } from '../../domain/knowledge/documents/decider.js';
import type { KnowledgeQuotaLimits } from '../../domain/knowledge/quota/decider.js';
import { DomainError } from '../../domain/errors.js';
import { handleCommand, loadState } from '../handleCommand.js';
import type { CommandDeps } from '../deps.js';
import { confirmKnowledgeQuota, releaseKnowledgeQuota, reserveKnowledgeQuota, resizeKnowledgeQuota } from './knowledgeQuota.js';

/** Add, edit and delete knowledge-base documents (reading one: queries.ts) (`kbdoc-<uuid>`); another company's document is NOT_FOUND. */

/**
 * Reserves the company's quota for the document (QUOTA_EXCEEDED when full), stores it (a header event and its
 * content parts, in one append), then confirms the reservation. A failed store releases the reservation; a
 * crash in between leaves it pending until the next reservation reclaims it (knowledgeQuota.ts).
 */
export async function addKnowledgeDocument(
  deps: CommandDeps,
  input: { companyId: string; userId: string; title: string; content: string; chunkCount: number; limits: KnowledgeQuotaLimits },
) {
  const documentId = randomUUID();
  const actor = { companyId: input.companyId, userId: input.userId };
  const bytes = contentBytes(input.content);
  await reserveKnowledgeQuota(deps, actor, { documentId, bytes, limits: input.limits });
  let result;
  try {
    result = await handleCommand(
      deps.eventStore,
      knowledgeDocumentStream(documentId),
      knowledgeDocumentDecider,
      { type: 'AddKnowledgeDocument', documentId, companyId: input.companyId, title: input.title, content: input.content, chunkCount: input.chunkCount, now: deps.clock.now().toISOString() },
      { metadata: { companyId: input.companyId, actor: `user:${input.userId}` } },
    );
  } catch (err) {
    await releaseKnowledgeQuota(deps, actor, { documentId, bytes, reason: 'failed' }).catch((releaseErr: unknown) =>
      deps.logger.error({ err: releaseErr, documentId }, 'knowledge quota: could not release the reservation of a failed upload; the next upload reclaims it once stale'),
    );
    throw err;
  }
  // Not critical: an unconfirmed reservation still counts, and is confirmed when found stale.
  await confirmKnowledgeQuota(deps, actor, documentId).catch((err: unknown) =>
    deps.logger.warn({ err, documentId }, 'knowledge quota: could not confirm the reservation of a stored document; it stays counted'),
  );
  return { ...result, documentId };
}

/**
 * Deletes the document, then releases its quota. Should the process die in between, the document is deleted
 * but still counted: a repeated DELETE (404) releases it then (the quota releases a document it counts once, whatever repeats it).
 */
export async function deleteKnowledgeDocument(deps: CommandDeps, input: { companyId: string; userId: string; documentId: string }) {
  const actor = { companyId: input.companyId, userId: input.userId };
  const release = (quotaBytes: number | null) =>
    quotaBytes === null ? Promise.resolve() : releaseKnowledgeQuota(deps, actor, { documentId: input.documentId, bytes: quotaBytes, reason: 'deleted' }).then(() => {});
  try {
    const result = await handleCommand(
      deps.eventStore,
      knowledgeDocumentStream(input.documentId),
      knowledgeDocumentDecider,
      { type: 'DeleteKnowledgeDocument', companyId: input.companyId, now: deps.clock.now().toISOString() },
      { metadata: { companyId: input.companyId, actor: `user:${input.userId}` } },
    );
    if (result.state.status === 'deleted') await release(result.state.quotaBytes);
    return result;
  } catch (err) {
    if (err instanceof DomainError && err.code === 'NOT_FOUND') {
      const { state } = await loadState(deps.eventStore, knowledgeDocumentStream(input.documentId), knowledgeDocumentDecider);
      if (state.status === 'deleted' && state.companyId === input.companyId) await release(state.quotaBytes);
    }
    throw err;
  }
}

/**
 * Replaces a document's title and content if it is still at `expectedRevision` (else CONFLICT, nothing
 * changed). The quota counts the new size: an edit that grows the document first reserves the extra bytes
 * (QUOTA_EXCEEDED when they do not fit, nothing changed) and gives them back if the edit then fails; one that
 * shrinks it frees the bytes after it is stored. Should the process die between a growth's reservation and
 * the edit, the company stays charged the extra bytes (never under-counted). A document stored before quotas
 * existed stays uncounted.
 */
export async function reviseKnowledgeDocument(
  deps: CommandDeps,
  input: {
    companyId: string;
    userId: string;
    documentId: string;
    expectedRevision: number;
    title: string;
    content: string;
    chunkCount: number;
    limits: KnowledgeQuotaLimits;
  },
) {
  const actor = { companyId: input.companyId, userId: input.userId };
  const stream = knowledgeDocumentStream(input.documentId);
  const { state } = await loadState(deps.eventStore, stream, knowledgeDocumentDecider);
  if (state.status !== 'active' || state.companyId !== input.companyId) throw new DomainError('NOT_FOUND', 'Document not found');
  if (state.revision !== input.expectedRevision) {
    // Decided again below on the latest state; refusing here spares the quota a reservation and its undo.
    knowledgeDocumentDecider.decide({ type: 'ReviseKnowledgeDocument', ...input, now: deps.clock.now().toISOString() }, state);
  }
  const editId = randomUUID();
  const deltaBytes = state.quotaBytes === null ? 0 : contentBytes(input.content) - state.quotaBytes;
  const resize = (delta: number, undo = false) =>
    resizeKnowledgeQuota(deps, actor, { documentId: input.documentId, editId, deltaBytes: delta, undo, limits: input.limits });
  if (deltaBytes > 0) await resize(deltaBytes);
  let result;
  try {
    result = await handleCommand(
      deps.eventStore,
      stream,
      knowledgeDocumentDecider,
      {
        type: 'ReviseKnowledgeDocument',
        companyId: input.companyId,
        expectedRevision: input.expectedRevision,
        title: input.title,
        content: input.content,
        chunkCount: input.chunkCount,
        now: deps.clock.now().toISOString(),
      },
      { metadata: { companyId: input.companyId, actor: `user:${input.userId}` } },
    );
  } catch (err) {
    if (deltaBytes > 0) {
      await resize(-deltaBytes, true).catch((undoErr: unknown) =>
        deps.logger.error({ err: undoErr, documentId: input.documentId, deltaBytes }, 'knowledge quota: a failed edit still counts the bytes it reserved'),
      );
    }
    throw err;
  }
  if (deltaBytes < 0) {
    await resize(deltaBytes).catch((err: unknown) =>
      deps.logger.warn({ err, documentId: input.documentId, deltaBytes }, 'knowledge quota: an edit that shrank the document still counts its old size'),
    );
  }
  return result;
}
