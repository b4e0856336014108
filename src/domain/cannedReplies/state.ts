import type { CannedReplyEvent, CannedReplyFields } from './events.js';

export interface CannedReply extends CannedReplyFields {
  id: string;
  createdAt: string;
  updatedAt: string;
}
export interface CannedRepliesState {
  companyId: string | null;
  replies: Map<string, CannedReply>;
}

export const initialCannedRepliesState: CannedRepliesState = { companyId: null, replies: new Map() };

export function evolveCannedReplies(state: CannedRepliesState, event: CannedReplyEvent): CannedRepliesState {
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
}
