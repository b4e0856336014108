import { randomUUID } from 'node:crypto';
import { knowledgeDocumentDecider, knowledgeDocumentStream } from '../../domain/knowledge/documents.js';
import { handleCommand } from '../handleCommand.js';
import type { CommandDeps } from '../ports.js';

/** Add and delete knowledge-base documents (`kbdoc-<uuid>`); another company's document is NOT_FOUND. */

export async function addKnowledgeDocument(deps: CommandDeps, input: { companyId: string; userId: string; title: string; content: string; chunkCount: number }) {
  const documentId = randomUUID();
  const result = await handleCommand(
    deps.eventStore,
    knowledgeDocumentStream(documentId),
    knowledgeDocumentDecider,
    { type: 'AddKnowledgeDocument', documentId, companyId: input.companyId, title: input.title, content: input.content, chunkCount: input.chunkCount, now: deps.clock.now().toISOString() },
    { metadata: { companyId: input.companyId, actor: `user:${input.userId}` } },
  );
  return { ...result, documentId };
}

export async function deleteKnowledgeDocument(deps: CommandDeps, input: { companyId: string; userId: string; documentId: string }) {
  return handleCommand(
    deps.eventStore,
    knowledgeDocumentStream(input.documentId),
    knowledgeDocumentDecider,
    { type: 'DeleteKnowledgeDocument', companyId: input.companyId, now: deps.clock.now().toISOString() },
    { metadata: { companyId: input.companyId, actor: `user:${input.userId}` } },
  );
}
