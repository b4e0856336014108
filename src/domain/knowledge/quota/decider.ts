import type { Decider } from '../../decider.js';
import { DomainError } from '../../errors.js';
import type { KnowledgeQuotaEvent } from './events.js';
import { evolveKnowledgeQuota, holdsKnowledgeDocument, initialKnowledgeQuotaState, type KnowledgeQuotaState } from './state.js';

export interface KnowledgeQuotaLimits {
  maxDocuments: number;
  maxBytes: number;
}

export type KnowledgeQuotaCommand =
  | { type: 'ReserveKnowledgeQuota'; documentId: string; bytes: number; limits: KnowledgeQuotaLimits; now: string }
  | { type: 'ConfirmKnowledgeQuota'; documentId: string; now: string }
  /** An edit changes a stored document's size by `deltaBytes` (QUOTA_EXCEEDED when a growth does not fit). */
  | { type: 'ResizeKnowledgeQuota'; documentId: string; editId: string; deltaBytes: number; undo?: boolean; limits: KnowledgeQuotaLimits; now: string }
  /** `bytes`: the document's own byte count, used when it is no longer pending (a stored document). */
  | { type: 'ReleaseKnowledgeQuota'; documentId: string; bytes: number; reason: 'deleted' | 'failed' | 'abandoned'; now: string };

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(bytes % (1024 * 1024) === 0 ? 0 : 1)} MiB`;

export const knowledgeQuotaDecider: Decider<KnowledgeQuotaCommand, KnowledgeQuotaEvent, KnowledgeQuotaState> = {
  initialState: initialKnowledgeQuotaState,
  evolve: evolveKnowledgeQuota,
  decide(command, state) {
    switch (command.type) {
      case 'ReserveKnowledgeQuota': {
        if (holdsKnowledgeDocument(state, command.documentId)) return []; // already reserved (a retry)
        const { maxDocuments, maxBytes } = command.limits;
        if (state.documents + 1 > maxDocuments) {
          throw new DomainError(
            'QUOTA_EXCEEDED',
            `knowledge-base quota exceeded: a company may store at most ${maxDocuments} documents and this one has ${state.documents}; delete documents to make room`,
          );
        }
        if (state.bytes + command.bytes > maxBytes) {
          throw new DomainError(
            'QUOTA_EXCEEDED',
            `knowledge-base quota exceeded: a company may store at most ${maxBytes} bytes (${mib(maxBytes)}) of document content; ${state.bytes} bytes are in use and this document has ${command.bytes}; delete documents to make room`,
          );
        }
        return [{ type: 'KnowledgeQuotaReserved', data: { documentId: command.documentId, bytes: command.bytes, at: command.now } }];
      }
      case 'ResizeKnowledgeQuota': {
        const { documentId, editId, deltaBytes, undo, limits, now } = command;
        if (deltaBytes === 0) return [];
        if (deltaBytes > 0 && !undo && state.bytes + deltaBytes > limits.maxBytes) {
          throw new DomainError(
            'QUOTA_EXCEEDED',
            `knowledge-base quota exceeded: a company may store at most ${limits.maxBytes} bytes (${mib(limits.maxBytes)}) of document content; ${state.bytes} bytes are in use and this edit adds ${deltaBytes}; delete documents or shorten this one`,
          );
        }
        return [{ type: 'KnowledgeQuotaResized', data: { documentId, editId, deltaBytes, ...(undo ? { undo } : {}), at: now } }];
      }
      case 'ConfirmKnowledgeQuota':
        if (!state.pending[command.documentId]) return []; // confirmed or released already
        return [{ type: 'KnowledgeQuotaConfirmed', data: { documentId: command.documentId, at: command.now } }];
      case 'ReleaseKnowledgeQuota': {
        const pending = state.pending[command.documentId];
        // A pending reservation is released with the bytes it reserved; a stored document with its own count.
        // A document the quota no longer counts (released before: a repeated DELETE) or never counted releases
        // nothing, decided here on the quota's state and not left to the store (EventStoreDB would store a
        // repeated release again).
        if (!holdsKnowledgeDocument(state, command.documentId)) return [];
        if (!pending && command.reason !== 'deleted') return [];
        return [
          {
            type: 'KnowledgeQuotaReleased',
            data: { documentId: command.documentId, bytes: pending ? pending.bytes : command.bytes, reason: command.reason, at: command.now },
          },
        ];
      }
    }
  },
};

export const knowledgeQuotaStream = (companyId: string) => `kbquota-${companyId}`;

