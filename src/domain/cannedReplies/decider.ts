import type { z } from 'zod';
import type { Decider } from '../decider.js';
import { DomainError } from '../errors.js';
import { CANNED_REPLY_LIMITS, cannedReplyFields as fields, type CannedReplyEvent, type CannedReplyFields } from './events.js';
import { evolveCannedReplies, initialCannedRepliesState, type CannedRepliesState } from './state.js';

export type CannedReplyCommand =
  | ({ type: 'CreateCannedReply'; companyId: string; cannedReplyId: string; by: string; now: string } & CannedReplyFields)
  | { type: 'UpdateCannedReply'; companyId: string; cannedReplyId: string; changes: Partial<CannedReplyFields>; by: string; now: string }
  | { type: 'DeleteCannedReply'; companyId: string; cannedReplyId: string; by: string; now: string };

export const normaliseShortcut = (shortcut: string) => shortcut.trim().replace(/^\/+/, '').toLowerCase();

function check<T>(schema: z.ZodType<T>, value: unknown): void {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.map(String).join('.') || 'cannedReply';
    const message = field === 'shortcut' && issue?.code === 'invalid_format' ? 'lower-case letters, digits, "-" and "_" only' : (issue?.message ?? 'invalid');
    throw new DomainError('VALIDATION_ERROR', `${field}: ${message}`);
  }
}

const duplicate = (shortcut: string) => new DomainError('CONFLICT', `shortcut: /${shortcut} is already used by another canned reply`);
const notFound = () => new DomainError('NOT_FOUND', 'Canned reply not found');

export const cannedRepliesDecider: Decider<CannedReplyCommand, CannedReplyEvent, CannedRepliesState> = {
  initialState: initialCannedRepliesState,
  evolve: evolveCannedReplies,
  decide(command, state) {
    if (state.companyId !== null && state.companyId !== command.companyId) throw notFound();
    const taken = (shortcut: string, except?: string) => [...state.replies.values()].some((r) => r.shortcut === shortcut && r.id !== except);
    switch (command.type) {
      case 'CreateCannedReply': {
        const { type: _t, now, ...data } = command;
        check(fields, data);
        if (taken(data.shortcut)) throw duplicate(data.shortcut);
        if (state.replies.size >= CANNED_REPLY_LIMITS.count) {
          throw new DomainError('QUOTA_EXCEEDED', `A company may keep at most ${CANNED_REPLY_LIMITS.count} canned replies; delete one first`);
        }
        return [{ type: 'CannedReplyCreated', data: { ...data, at: now } }];
      }
      case 'UpdateCannedReply': {
        const known = state.replies.get(command.cannedReplyId);
        if (!known) throw notFound();
        const changes = Object.fromEntries(
          Object.entries(command.changes).filter(([k, v]) => v !== undefined && v !== known[k as keyof CannedReplyFields]),
        ) as Partial<CannedReplyFields>;
        check(fields.partial(), changes);
        if (changes.shortcut !== undefined && taken(changes.shortcut, known.id)) throw duplicate(changes.shortcut);
        if (Object.keys(changes).length === 0) return [];
        return [{ type: 'CannedReplyUpdated', data: { cannedReplyId: known.id, changes, by: command.by, at: command.now } }];
      }
      case 'DeleteCannedReply':
        if (!state.replies.has(command.cannedReplyId)) throw notFound();
        return [{ type: 'CannedReplyDeleted', data: { cannedReplyId: command.cannedReplyId, by: command.by, at: command.now } }];
    }
  },
};

export const cannedRepliesStream = (companyId: string) => `cannedreplies-${companyId}`;
