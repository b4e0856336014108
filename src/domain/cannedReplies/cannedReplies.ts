import { z } from 'zod';
import type { Decider } from '../decider.js';
import { DomainError } from '../errors.js';

/**
 * A company's canned replies: short texts an operator inserts with `/shortcut` in the reply box. One stream per
 * company (`cannedreplies-<companyId>`) holds them all, so a shortcut is unique and the count is capped by one
 * decision, without a reservation stream; the set is small (CANNED_REPLY_LIMITS.count) and edited by hand.
 */

export const CANNED_REPLY_LIMITS = { count: 200, shortcut: 32, title: 100, text: 4000 } as const;
/** Lower-case letters, digits, `-` and `_`, starting with a letter or digit: what follows the `/`. */
export const SHORTCUT_PATTERN = /^[a-z0-9][a-z0-9_-]*$/;

const at = z.iso.datetime();
const fields = z.object({
  shortcut: z.string().min(1).max(CANNED_REPLY_LIMITS.shortcut).regex(SHORTCUT_PATTERN),
  title: z.string().min(1).max(CANNED_REPLY_LIMITS.title),
  text: z.string().min(1).max(CANNED_REPLY_LIMITS.text),
});
export type CannedReplyFields = z.infer<typeof fields>;

export const cannedReplyEvents = {
  CannedReplyCreated: fields.extend({ cannedReplyId: z.uuid(), companyId: z.uuid(), by: z.string().max(100), at }),
  CannedReplyUpdated: z.object({ cannedReplyId: z.uuid(), changes: fields.partial(), by: z.string().max(100), at }),
  CannedReplyDeleted: z.object({ cannedReplyId: z.uuid(), by: z.string().max(100), at }),
};
type Events = typeof cannedReplyEvents;
export type CannedReplyEvent = { [K in keyof Events]: { type: K; data: z.infer<Events[K]>; id?: string } }[keyof Events];

export interface CannedReply extends CannedReplyFields {
  id: string;
  createdAt: string;
  updatedAt: string;
}
export interface CannedRepliesState {
  companyId: string | null;
  replies: Map<string, CannedReply>;
}

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
  initialState: { companyId: null, replies: new Map() },
  evolve(state, event) {
    const replies = new Map(state.replies);
    switch (event.type) {
      case 'CannedReplyCreated': {
        const { cannedReplyId, companyId, by: _by, at: when, ...rest } = event.data;
        replies.set(cannedReplyId, { id: cannedReplyId, ...rest, createdAt: when, updatedAt: when });
        return { companyId, replies };
      }
      case 'CannedReplyUpdated': {
        const known = replies.get(event.data.cannedReplyId);
        if (known) replies.set(known.id, { ...known, ...event.data.changes, updatedAt: event.data.at });
        return { ...state, replies };
      }
      case 'CannedReplyDeleted':
        replies.delete(event.data.cannedReplyId);
        return { ...state, replies };
    }
  },
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
