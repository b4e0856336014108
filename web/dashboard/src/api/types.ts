// Resource shapes of the public API (see /work/shared/API.md): the server's, from the zod schemas of its routes
// (serverTypes.ts), with the few view-models the dashboard derives from them.
import type {
  Agent,
  AgentInput,
  AiBacklog,
  AnalyticsReport,
  ApiTokenPage,
  AutoAssignmentSettings,
  ConversationDetail,
  ConversationEvent,
  Credits,
  InboxViews,
  Integration,
  IntegrationChanges,
  IntegrationInput,
  InvitationPage,
  InvitationPreview,
  KbDocumentPage,
  KbDocumentWithContent,
  KbSearchResult,
  LlmConfig,
  LlmConfigInput,
  LoginReply,
  Me,
  NotificationChoices,
  Pipeline,
  TeammatePage,
  WebhookLogDetail,
} from './serverTypes.js';

export type {
  Agent,
  AgentInput,
  AiBacklog,
  AnalyticsReport,
  ConversationDetail,
  ConversationEvent,
  Credits,
  Integration,
  IntegrationChanges,
  IntegrationInput,
  InvitationPreview,
  KbDocumentWithContent,
  KbSearchResult,
  LlmConfig,
  LlmConfigInput,
  Me,
  NotificationChoices,
  Pipeline,
  WebhookLogDetail,
};

export type Session = LoginReply['session'];

export type Role = Me['user']['role'];

/** The signed-in user: login and register answer without the role and superadmin flag GET /api/auth/me adds. */
export type User = Omit<Me['user'], 'isSuperadmin' | 'role'> & Partial<Pick<Me['user'], 'isSuperadmin' | 'role'>>;

export type Teammate = TeammatePage['teammates'][number];
export type Availability = NonNullable<Teammate['availability']>;
/** GET/PUT /api/settings/auto-assignment. */
export type AutoAssignment = AutoAssignmentSettings['autoAssignment'];

export type Invitation = InvitationPage['invitations'][number];

/** The company as GET /api/auth/me names it; registering answers without createdAt. */
export type Company = Omit<Me['company'], 'createdAt'> & Partial<Pick<Me['company'], 'createdAt'>>;

export type ConnectorType = Integration['connectorType'];
export type IdentityVerification = Integration['identityVerification'];
/** An integration's satisfaction survey (CSAT) after a close. */
export type CsatSettings = Integration['csat'];

export type WebhookLog = Omit<WebhookLogDetail, 'payload'>;
export type WebhookOutcome = WebhookLog['outcome'];

export type AnswerThreshold = NonNullable<Agent['answerThreshold']>;

export type LlmProvider = LlmConfig['provider'];

export type KbDocument = KbDocumentPage['documents'][number];

export type Conversation = ConversationDetail['conversation'];
export type SessionState = NonNullable<Conversation['session']>['state'];
/** The action call waiting for the customer's yes (confirm) or a teammate's approval (approve). */
export type PendingAction = NonNullable<Conversation['pendingAction']>;
export type Handoff = NonNullable<Conversation['handoff']>;
export type HandoffReason = Handoff['reason'];
/** The note for whoever takes over the current handoff. */
export type HandoffSummary = NonNullable<Conversation['handoffSummary']>;

export type InboxView = keyof InboxViews;
export type ViewCounts = InboxViews;

export type Message = ConversationDetail['messages'][number];
export type MessageAuthor = Message['author'];
export type Delivery = Message['delivery'];

export type ConversationContext = ConversationDetail['context'];
export type Transfer = ConversationContext['transfers'][number];

export type Stage = Pipeline['stages'][number];

export type LedgerEntry = Credits['ledger'][number];

export type ApiToken = ApiTokenPage['apiTokens'][number];

/** A page of a keyset-paginated list, as the dashboard's lists hold it. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

// --- analytics ------------------------------------------------------------------------------
export type AnalyticsSeries = AnalyticsReport['totals'];
export type FirstResponse = AnalyticsSeries['aiFirstResponse'];
