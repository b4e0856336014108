import type { AnswerProvenanceView } from '../components/AnswerSources.js';
// Resource shapes of the public API (see /work/shared/API.md).

export interface Session {
  access_token: string;
  refresh_token: string;
  /** Expiry of the access token, seconds since the epoch. */
  expires_at: number;
}

export type Role = 'owner' | 'admin' | 'agent';

export interface User {
  id: string;
  email: string;
  companyId: number;
  isSuperadmin?: boolean;
  /** In GET /api/auth/me: the user's team role. */
  role?: Role;
}

export interface Teammate {
  id: string;
  email: string;
  name: string | null;
  role: Role;
  joinedAt: string;
  /** In the team list: whether they take conversations now, and how many open ones they own. */
  availability?: Availability;
  openAssigned?: number;
}

export type Availability = 'online' | 'away';
/** GET/PUT /api/settings/auto-assignment. */
export interface AutoAssignment {
  enabled: boolean;
  capacity: number;
}

export interface Invitation {
  id: string;
  email: string;
  role: Role;
  invitedBy: string;
  createdAt: string;
  expiresAt: string;
  expired: boolean;
}

export interface InvitationPreview {
  email: string;
  role: Role;
  companyName: string;
  expiresAt: string;
}

export interface Company {
  id: number;
  companyId: string;
  companyName: string;
  createdAt?: string;
}

export interface Me {
  user: User;
  company: Company;
}

export type ConnectorType = 'msgplatform' | 'webchat';

export interface Integration {
  id: number;
  name: string;
  connectorType: ConnectorType;
  apiUrl: string | null;
  active: boolean;
  agentId: string | null;
  hasWebhookSecret: boolean;
  hasApiToken: boolean;
  webhookUrl: string;
  webhookRegistered: boolean;
  webhookRegisteredAt: string | null;
  allowedOrigins?: string[];
  /** msgplatform without apiUrl: replies are delivered to the sandbox (kept here, sent nowhere). */
  sandbox?: boolean;
  /** webchat: the first message the widget shows; null when none. */
  greeting?: string | null;
  /** The satisfaction survey after a close. */
  csat?: CsatSettings;
  /** webchat: identity verification and whether its secret is set (the secret itself is shown once, when generated). */
  identityVerification?: IdentityVerification;
  hasIdentitySecret?: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface IntegrationInput {
  name?: string;
  connectorType?: ConnectorType;
  apiUrl?: string | null;
  apiToken?: string;
  webhookSecret?: string;
  active?: boolean;
  agentId?: string | null;
  allowedOrigins?: string[];
  greeting?: string | null;
  /** The satisfaction survey after a close. */
  csat?: CsatSettings;
  /** Web chat: whether the site's signed visitor identity is checked. */
  identityVerification?: IdentityVerification;
}

export type IdentityVerification = 'off' | 'optional' | 'required';

export type WebhookOutcome = 'processed' | 'duplicate' | 'ignored' | 'rejected';

export interface WebhookLog {
  id: string;
  integrationId: number;
  receivedAt: string;
  httpStatus: number;
  outcome: WebhookOutcome;
  kind: 'message' | 'status_event' | 'other';
  reason: string | null;
  /** The conversation the delivery fed, when it was a customer or operator message. */
  conversationId?: string | null;
  hasPayload?: boolean;
}

export interface WebhookLogDetail extends WebhookLog {
  payload: { headers: Record<string, string>; body: string; truncated: boolean } | null;
}

export interface Agent {
  id: string;
  name: string;
  systemPrompt?: string | null;
  model?: string | null;
  temperature?: number | null;
  useKnowledgeBase: boolean;
  active: boolean;
  handoffMessage?: string | null;
  /** How sure the builtin agent must be to answer rather than hand off. */
  answerThreshold?: AnswerThreshold;
  /** Whether a model citing the knowledge base may also answer without a passage. */
  generalAnswers?: boolean;
  /** Added to a handoff outside business hours; {{back}} becomes when the team is back. */
  afterHoursMessage?: string;
  /** Minutes after a handoff (or a teammate's message) after which a customer's message gives it back to the AI; null: stays with people. */
  handBackAfterMinutes?: number | null;
  /** The company's actions it may call while it answers (never with the built-in provider). */
  actionIds?: string[];
  createdAt?: string;
  updatedAt?: string;
}

export interface AgentInput {
  name: string;
  systemPrompt?: string;
  model?: string;
  temperature?: number;
  useKnowledgeBase: boolean;
  active: boolean;
  handoffMessage?: string;
  answerThreshold?: AnswerThreshold;
  generalAnswers?: boolean;
  afterHoursMessage?: string;
  handBackAfterMinutes?: number | null;
  actionIds?: string[];
}

export type AnswerThreshold = 'strict' | 'balanced' | 'lenient';

export type LlmProvider = 'builtin' | 'openai';

export interface LlmConfig {
  provider: LlmProvider;
  baseUrl: string | null;
  model: string | null;
  hasApiKey: boolean;
}

export interface LlmConfigInput {
  provider: LlmProvider;
  baseUrl?: string;
  apiKey?: string;
  model?: string;
}

export interface KbDocument {
  id: string;
  title: string;
  chunkCount: number;
  createdAt: string;
  updatedAt: string;
  /** 1 after the upload, +1 per edit; an edit names the revision it was made on. */
  revision: number;
}

/** One document with its whole content (GET /api/knowledge-base/documents/:id). */
export interface KbDocumentWithContent extends KbDocument {
  content: string;
  bytes: number;
}

export interface KbSearchResult {
  documentId: string;
  title: string;
  snippet: string;
  score: number;
}

export type SessionState = 'active' | 'paused' | 'closed';

export interface Conversation {
  id: string;
  integrationId: number;
  connectorType: ConnectorType;
  /** `displayName`: how to name the customer, decided by the server (the name they gave, "Visitor 4F2A", "Client 123"). */
  customer: { clientId: string | number; channelId?: string | number | null; transport?: string | null; name?: string | null; displayName?: string };
  /** null until the first customer message opens an AI session (e.g. a conversation an operator started). */
  session: { id: string; state: SessionState; pausedReason?: string | null } | null;
  stageId: string | null;
  lastMessageAt: string | null;
  messageCount: number;
  createdAt: string;
  /** The teammate (user id) who owns it; null: unassigned. */
  assigneeId?: string | null;
  /** Set while a customer waits for a human ("Needs human"). */
  handoff?: Handoff | null;
  handoffSummary?: HandoffSummary | null;
  /** How it was resolved, while it stays closed. */
  resolution?: string | null;
  /** Customer messages the signed-in user has not read. */
  unread?: number;
  /** The newest message for the list's preview: who wrote it and its first words. */
  lastMessage?: { author: 'customer' | 'agent' | 'operator'; text: string } | null;
  /** The action call waiting for the customer's yes (confirm) or a teammate's approval (approve). */
  pendingAction?: PendingAction | null;
}

export interface PendingAction {
  callId: string;
  actionId: string;
  actionName: string;
  mode: 'confirm' | 'approve';
  /** As recorded: identity values replaced by their source, long strings cut. */
  arguments: Record<string, string | number | boolean>;
  expiresAt: string;
  /** approve: the roles that may decide; null: any teammate. */
  approverRoles: string[] | null;
  holdingReply: string | null;
  /** confirm: the question the customer was asked. */
  prompt: string | null;
  requestedAt: string;
  askedAt: string;
}

export type HandoffReason = 'agent_handoff' | 'no_confident_answer' | 'ai_unanswered' | 'customer_request' | 'dialog_transferred' | 'experiment_holdout';
export interface Handoff {
  reason: HandoffReason;
  detail: string | null;
  since: string;
  /** Handed off outside business hours: when the team is back. */
  backAt?: string;
}

/** GET /api/me/notifications: the caller's own email notification choices. */
export interface NotificationChoices {
  assigned: boolean;
  handoffWaiting: boolean;
  handoffWaitingMinutes: number;
  /** Whether the service can send email at all (SMTP configured). */
  emailAvailable: boolean;
}

/** The note for whoever takes over the current handoff. */
export interface HandoffSummary {
  wants: string;
  tried: string;
  sources: { documentId: string; title: string }[];
  why: string;
  writtenBy: 'llm' | 'extractive';
  at: string;
}

export type InboxView = 'mine' | 'unassigned' | 'needs_human';
export type ViewCounts = Record<InboxView, { count: number; unread: number; unreadCapped: boolean }>;

/** GET /api/ai-backlog: the company's conversations waiting for an AI answer. */
export interface AiBacklog {
  waiting: number;
  /** The oldest waiting customer message's time; null when none waits. */
  oldestWaitingSince: string | null;
  /** The oldest has waited longer than the server's threshold (a minute). */
  delayed: boolean;
}

export type MessageAuthor = 'customer' | 'agent' | 'operator' | 'system';
export type Delivery = 'received' | 'pending' | 'sent' | 'failed';

export interface Message {
  id: string;
  author: MessageAuthor;
  text: string;
  createdAt: string;
  delivery: Delivery;
  /** Why a failed message was not delivered, in words. */
  deliveryError?: string | null;
  /** Where a sent message went; 'sandbox' = kept in the service, sent nowhere. */
  deliveredTo?: 'platform' | 'webchat' | 'sandbox' | null;
  /** AI replies: what produced the answer (null on other messages; absent from an older server). */
  model?: string | null;
  inputTokens?: number | null;
  outputTokens?: number | null;
  provenance?: AnswerProvenanceView | null;
  /** AI replies: the agent that wrote it (null when not known). */
  agentId?: string | null;
  /** AI replies: the agent version that wrote it (null when recorded before versions). */
  agentVersion?: number | null;
  /** AI replies written in an experiment: which arm. */
  experiment?: { experimentId: string; arm: 'a' | 'b' | 'holdout' } | null;
}

export interface Transfer {
  dialogId: string | number | null;
  requestId: string | number | null;
  at: string;
}

export interface ConversationContext {
  transfers: Transfer[];
  notes: unknown[];
}

export interface ConversationDetail {
  conversation: Conversation;
  messages: Message[];
  context: ConversationContext;
}

export interface ConversationEvent {
  position: string | number;
  revision: string | number;
  type: string;
  data: unknown;
  createdAt: string;
}

export interface Stage {
  id: string;
  name: string;
  position: number;
}

export interface Pipeline {
  id: string;
  stages: Stage[];
}

export interface LedgerEntry {
  at: string;
  deltaMicros: number | string;
  reason: string;
  conversationId?: string | null;
}

export interface Credits {
  balanceMicros: number | string;
  balance: string;
  currency: string;
  ledger: LedgerEntry[];
}

export interface ApiToken {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  /**
   * The teammate who created it: the token acts with their current role (never above admin) and stops when they
   * leave the team. role null: no longer a member. null: not known yet (a list from before creators were kept).
   */
  createdBy: { id: string; name: string | null; email: string | null; role: Role | null } | null;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

// --- analytics ------------------------------------------------------------------------------
export interface FirstResponse {
  count: number;
  p50Ms: number | null;
  p90Ms: number | null;
}
export interface AnalyticsSeries {
  conversationsStarted: number;
  conversationsActive: number;
  customerMessages: number;
  aiReplies: number;
  operatorMessages: number;
  aiResolved: number;
  handedOff: number;
  deliveryFailed: number;
  unanswered: number;
  repliesFailed: number;
  creditsSpentMicros: number;
  handoffReasons: Record<HandoffReason, number>;
  aiFirstResponse: FirstResponse;
  humanFirstResponse: FirstResponse;
  /** Split by whether the customer's wait began inside or outside business hours. */
  firstResponseByHours?: Record<'inHours' | 'outsideHours', { ai: FirstResponse; human: FirstResponse }>;
}
export interface AnalyticsReport {
  timezone: string;
  from: string;
  to: string;
  days: (AnalyticsSeries & { date: string })[];
  totals: AnalyticsSeries;
}

/** An integration's satisfaction survey (CSAT) after a close. */
export interface CsatSettings {
  enabled: boolean;
  skipWithoutCustomerReply: boolean;
}
