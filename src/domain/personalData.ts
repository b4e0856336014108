import { conversationStream } from './conversations/decider.js';
import { customerIdFor } from './customers/decider.js';
import { ERASED_TEXT } from './customers/events.js';

/**
 * Where customers' personal data sits in events, so the event store can keep it encrypted under a key of that
 * customer's and "shred" it by deleting the key (crypto-shredding, docs/erasure.md). Pure description: the
 * encryption itself is infrastructure (infrastructure/personalKeys/encryptingEventStore.ts).
 *
 * Each entry names the fields (dotted paths into the event's data) and what each reads as once its key is gone:
 * the marker text, an empty value, or `undefined` (an optional field then reads as absent). Every replacement
 * passes the event's schema, so an erased event still validates, replays and counts like before: only the
 * personal values change. Fields that only say how the log is shaped (ids, times, counts, types) stay plain.
 */
export { ERASED_TEXT };

export interface PersonalDataSpec {
  /** Dotted path → the value it reads as once erased. */
  fields: Record<string, unknown>;
  /**
   * Whose key: the event's own stream (default), or another stream's (a copy made from a conversation uses that
   * conversation's key, so erasing the conversation's customer erases the copy too). Null: no key, stays plain.
   */
  keyScope?: (data: Record<string, unknown>, stream: string) => string | null;
  /** The customer a new key of the scope is for: only the event that opens the scope creates its key. */
  subject?: (data: Record<string, unknown>) => { subjectId: string; companyId: string };
}

const ofConversation = (path: string) => (data: Record<string, unknown>) => {
  const id = readPath(data, path);
  return typeof id === 'string' ? conversationStream(id) : null;
};

export const personalDataSpecs: Record<string, PersonalDataSpec> = {
  // The customer's stream: profile, the teammates' note and tags about them.
  CustomerProfileUpdated: {
    fields: { clientId: ERASED_TEXT, 'changes.name': undefined, 'changes.phone': undefined, 'changes.email': undefined },
    subject: (d) => ({ subjectId: d['customerId'] as string, companyId: d['companyId'] as string }),
  },
  CustomerNoteSet: { fields: { note: ERASED_TEXT } },
  CustomerTagsSet: { fields: { tags: [] } },
  // The conversation's stream: the customer's identity, every message both ways, what was said about them.
  ConversationStarted: {
    fields: { 'customer.clientId': ERASED_TEXT, 'customer.name': undefined },
    subject: (d) => {
      const customer = d['customer'] as { clientId: string | number };
      return { subjectId: customerIdFor(d['integrationId'] as number, customer.clientId), companyId: d['companyId'] as string };
    },
  },
  MessageReceived: { fields: { text: ERASED_TEXT, attachments: undefined, client: undefined } },
  OperatorMessageRecorded: { fields: { text: ERASED_TEXT, attachments: undefined } },
  OperatorMessageSent: { fields: { text: ERASED_TEXT } },
  // A teammate's internal note is about the customer: it goes with the conversation's key.
  NoteAdded: { fields: { text: ERASED_TEXT } },
  AgentReplied: { fields: { text: ERASED_TEXT, handoffReason: undefined } },
  AiSessionClosed: { fields: { resolution: undefined } },
  CsatSubmitted: { fields: { comment: null } },
  HandoffSummarized: { fields: { wants: ERASED_TEXT, tried: ERASED_TEXT, why: ERASED_TEXT } },
  CustomerIdentityVerified: { fields: { userId: ERASED_TEXT, email: null } },
  ActionCallRequested: { fields: { arguments: {} } },
  ActionConfirmationAsked: { fields: { prompt: ERASED_TEXT } },
  ActionApprovalRequested: { fields: { holdingReply: ERASED_TEXT } },
  ActionCallSucceeded: { fields: { response: ERASED_TEXT } },
  ActionCallFailed: { fields: { error: ERASED_TEXT } },
  // The raw webhook that brought a message (in the conversation's stream, or the integration's log).
  WebhookDeliveryLogged: { fields: { payload: undefined }, keyScope: ofConversation('conversationId') },
  // Copies made from a conversation: replays, and test cases saved from one.
  ReplayAnswerRecorded: {
    fields: { customerText: ERASED_TEXT, 'recorded.text': ERASED_TEXT, 'draft.text': ERASED_TEXT },
    keyScope: ofConversation('conversationId'),
  },
  AgentTestCaseSaved: {
    fields: { turns: [ERASED_TEXT], 'reference.text': ERASED_TEXT },
    keyScope: ofConversation('reference.conversationId'),
  },
};

export function readPath(data: unknown, path: string): unknown {
  let at: unknown = data;
  for (const part of path.split('.')) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}

/** A copy of `data` with `path` set to `value` (removed when undefined); parents must exist. */
export function writePath(data: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const [head, ...rest] = path.split('.') as [string, ...string[]];
  const out = { ...data };
  if (rest.length === 0) {
    if (value === undefined) delete out[head];
    else out[head] = value;
    return out;
  }
  const child = out[head];
  if (child === null || typeof child !== 'object') return out;
  out[head] = writePath(child as Record<string, unknown>, rest.join('.'), value);
  return out;
}
