// One typed function per API call the dashboard makes.
import { publicRequest, query, request, setSession, type RequestOptions } from './client.js';
import type {
  NotificationChoices,
  AiBacklog,
  AnalyticsReport,
  Agent,
  AgentInput,
  ApiToken,
  Conversation,
  ConversationDetail,
  ConversationEvent,
  Credits,
  InboxView,
  Integration,
  IntegrationChanges,
  IntegrationInput,
  Invitation,
  InvitationPreview,
  Role,
  Teammate,
  Availability,
  AutoAssignment,
  KbDocument,
  KbDocumentWithContent,
  KbSearchResult,
  LlmConfig,
  LlmConfigInput,
  Me,
  Page,
  Pipeline,
  Session,
  SessionState,
  User,
  ViewCounts,
  WebhookLog,
  WebhookLogDetail,
  WebhookOutcome,
} from './types.js';

type Opts = RequestOptions;

// --- auth ---------------------------------------------------------------------------------
export async function login(email: string, password: string): Promise<User> {
  const result = await publicRequest<{ session: Session; user: User }>('POST', '/api/auth/login', { email, password });
  setSession(result.session);
  return result.user;
}

export function register(email: string, password: string, companyName: string) {
  return publicRequest<{ user: { id: string; email: string }; company: { id: number; companyId: string; companyName: string } }>(
    'POST',
    '/api/auth/register',
    { email, password, companyName },
  );
}

export const getMe = (o?: Opts) => request<Me>('GET', '/api/auth/me', undefined, o);

// --- integrations -----------------------------------------------------------------------
export const listIntegrations = async (o?: Opts) =>
  (await request<{ integrations: Integration[] }>('GET', '/api/integrations?limit=200', undefined, o)).integrations;
export const getIntegration = async (id: number, o?: Opts) =>
  (await request<{ integration: Integration }>('GET', `/api/integrations/${id}`, undefined, o)).integration;
export const createIntegration = async (input: IntegrationInput) =>
  (await request<{ integration: Integration }>('POST', '/api/integrations', input)).integration;
export const updateIntegration = async (id: number, input: IntegrationChanges) =>
  (await request<{ integration: Integration }>('PATCH', `/api/integrations/${id}`, input)).integration;
export const rotateIdentitySecret = async (id: number) =>
  request<{ integration: Integration; identitySecret: string }>('POST', `/api/integrations/${id}/identity-secret`);
export const deleteIntegration = (id: number) => request<void>('DELETE', `/api/integrations/${id}`);
export const registerWebhook = (id: number) =>
  request<{ ok: boolean; webhookRegisteredAt: string }>('POST', `/api/integrations/${id}/register-webhook`);

/** Sends a signed test customer message through the integration's webhook; answers with the conversation to open. */
export const sendTestMessage = (id: number, text: string) =>
  request<{ ok: boolean; conversationId: string }>('POST', `/api/integrations/${id}/test-message`, { text });
/** Newest first; every integration of the company when `integrationId` is null. */
export async function listWebhookLogs(
  filter: { integrationId: number | null; outcome?: WebhookOutcome | null },
  cursor: string | null,
  o?: Opts,
): Promise<Page<WebhookLog>> {
  const result = await request<{ logs: WebhookLog[]; nextCursor?: string | null }>(
    'GET',
    `/api/webhook-logs${query({ integrationId: filter.integrationId ?? undefined, outcome: filter.outcome ?? undefined, limit: 50, cursor })}`,
    undefined,
    o,
  );
  return { items: result.logs, nextCursor: result.nextCursor ?? null };
}

/** One delivery with what was kept of its payload (secrets redacted by the server). */
export const getWebhookLog = async (id: string, o?: Opts) =>
  (await request<{ log: WebhookLogDetail }>('GET', `/api/webhook-logs/${encodeURIComponent(id)}`, undefined, o)).log;

// --- agents -------------------------------------------------------------------------------
export const listAgents = async (o?: Opts) => (await request<{ agents: Agent[] }>('GET', '/api/agents', undefined, o)).agents;
export const getAgent = async (id: string, o?: Opts) =>
  (await request<{ agent: Agent }>('GET', `/api/agents/${encodeURIComponent(id)}`, undefined, o)).agent;
export const createAgent = async (input: AgentInput) => (await request<{ agent: Agent }>('POST', '/api/agents', input)).agent;
export const updateAgent = async (id: string, input: Partial<AgentInput>) =>
  (await request<{ agent: Agent }>('PATCH', `/api/agents/${encodeURIComponent(id)}`, input)).agent;
export const deleteAgent = (id: string) => request<void>('DELETE', `/api/agents/${encodeURIComponent(id)}`);

// --- LLM ----------------------------------------------------------------------------------
export const getLlmConfig = async (o?: Opts) => (await request<{ llmConfig: LlmConfig }>('GET', '/api/llm-config', undefined, o)).llmConfig;
export const saveLlmConfig = async (input: LlmConfigInput) =>
  (await request<{ llmConfig: LlmConfig }>('PUT', '/api/llm-config', input)).llmConfig;
/**
 * Not in API.md: tests a configuration with a tiny completion — the one given (the form's, unsaved; an omitted
 * apiKey uses the stored key only for the stored baseUrl), or the saved one without a body.
 */
export const testLlmConfig = (input?: LlmConfigInput) => request<{ ok: boolean; model?: string }>('POST', '/api/llm-config/test', input);

// --- knowledge base -----------------------------------------------------------------------
export const listDocuments = async (o?: Opts) =>
  (await request<{ documents: KbDocument[] }>('GET', '/api/knowledge-base/documents', undefined, o)).documents;
/** The newest document's title (the example a test message suggests); null without documents. */
export const latestDocumentTitle = async () =>
  (await request<{ documents: KbDocument[] }>('GET', '/api/knowledge-base/documents?limit=1')).documents[0]?.title ?? null;
export const createDocument = async (title: string, content: string) =>
  (await request<{ document: KbDocument }>('POST', '/api/knowledge-base/documents', { title, content })).document;
export const getDocument = async (id: string, o?: Opts) =>
  (await request<{ document: KbDocumentWithContent }>('GET', `/api/knowledge-base/documents/${encodeURIComponent(id)}`, undefined, o)).document;
export const updateDocument = async (id: string, body: { title: string; content: string; expectedRevision: number }) =>
  (await request<{ document: KbDocument }>('PUT', `/api/knowledge-base/documents/${encodeURIComponent(id)}`, body)).document;
export const deleteDocument = (id: string) => request<void>('DELETE', `/api/knowledge-base/documents/${encodeURIComponent(id)}`);
export const searchKnowledgeBase = async (q: string, o?: Opts) =>
  (await request<{ results: KbSearchResult[] }>('GET', `/api/knowledge-base/search${query({ q })}`, undefined, o)).results;

// --- conversations ------------------------------------------------------------------------
export interface ConversationFilters {
  /** An inbox view ('' = all conversations). */
  view?: InboxView | '';
  state?: SessionState | '';
  integrationId?: number | '';
  stageId?: string;
}

export async function listConversations(filters: ConversationFilters, cursor: string | null, limit = 50, o?: Opts): Promise<Page<Conversation>> {
  const result = await request<{ conversations: Conversation[]; nextCursor?: string | null }>(
    'GET',
    `/api/conversations${query({ view: filters.view, state: filters.state, integrationId: filters.integrationId, stageId: filters.stageId, limit, cursor })}`,
    undefined,
    o,
  );
  return { items: result.conversations, nextCursor: result.nextCursor ?? null };
}

export const getConversation = (id: string, o?: Opts) =>
  request<ConversationDetail>('GET', `/api/conversations/${encodeURIComponent(id)}`, undefined, o);
export const getConversationEvents = async (id: string, o?: Opts) =>
  (await request<{ events: ConversationEvent[] }>('GET', `/api/conversations/${encodeURIComponent(id)}/events`, undefined, o)).events;
export const sessionAction = async (id: string, action: 'pause' | 'resume' | 'close' | 'reopen') =>
  (await request<{ conversation: Conversation }>('POST', `/api/conversations/${encodeURIComponent(id)}/${action}`)).conversation;
/** Close with an optional note of how it was resolved. */
export const resolveConversation = async (id: string, resolution: string) =>
  (await request<{ conversation: Conversation }>('POST', `/api/conversations/${encodeURIComponent(id)}/close`, resolution.trim() ? { resolution: resolution.trim() } : {})).conversation;
export const assignConversation = async (id: string, assigneeId: string) =>
  (await request<{ conversation: Conversation }>('POST', `/api/conversations/${encodeURIComponent(id)}/assign`, { assigneeId })).conversation;
export const unassignConversation = async (id: string) =>
  (await request<{ conversation: Conversation }>('POST', `/api/conversations/${encodeURIComponent(id)}/unassign`)).conversation;
const actionCallUrl = (id: string, callId: string, decision: 'approve' | 'refuse') =>
  `/api/conversations/${encodeURIComponent(id)}/action-calls/${encodeURIComponent(callId)}/${decision}`;
export const approveActionCall = async (id: string, callId: string) => (await request<{ conversation: Conversation }>('POST', actionCallUrl(id, callId, 'approve'))).conversation;
export const refuseActionCall = async (id: string, callId: string, reason: string) =>
  (await request<{ conversation: Conversation }>('POST', actionCallUrl(id, callId, 'refuse'), reason.trim() ? { reason: reason.trim() } : {})).conversation;
export const markConversationRead = async (id: string) =>
  (await request<{ conversation: Conversation }>('POST', `/api/conversations/${encodeURIComponent(id)}/read`)).conversation;
export const getConversationViews = async (o?: Opts) => (await request<{ views: ViewCounts }>('GET', '/api/conversations/views', undefined, o)).views;
export const getAiBacklog = async (o?: Opts) => (await request<{ aiBacklog: AiBacklog }>('GET', '/api/ai-backlog', undefined, o)).aiBacklog;
/** `idempotencyKey`: the same for every attempt of one message, so an attempt whose answer was lost is not sent twice. */
export const sendOperatorMessage = (id: string, text: string, idempotencyKey: string) =>
  request<{ message: unknown }>('POST', `/api/conversations/${encodeURIComponent(id)}/messages`, { text }, { idempotencyKey });
export const setConversationStage = async (id: string, stageId: string) =>
  (await request<{ conversation: Conversation }>('PUT', `/api/conversations/${encodeURIComponent(id)}/stage`, { stageId })).conversation;

export const getPipeline = async (o?: Opts) => (await request<{ pipeline: Pipeline }>('GET', '/api/pipeline', undefined, o)).pipeline;
export const getCredits = async (o?: Opts) => (await request<{ credits: Credits }>('GET', '/api/credits', undefined, o)).credits;

// --- settings -----------------------------------------------------------------------------
export const listApiTokens = async (o?: Opts) =>
  (await request<{ apiTokens: ApiToken[] }>('GET', '/api/settings/api-tokens?limit=200', undefined, o)).apiTokens;
export const createApiToken = (name: string) => request<{ token: string; apiToken: ApiToken }>('POST', '/api/settings/api-tokens', { name });
export const revokeApiToken = (id: string) => request<void>('DELETE', `/api/settings/api-tokens/${encodeURIComponent(id)}`);

// --- team ---------------------------------------------------------------------------------
export async function listTeammates(cursor: string | null, o?: Opts): Promise<Page<Teammate>> {
  const result = await request<{ teammates: Teammate[]; nextCursor: string | null }>('GET', `/api/team${query({ limit: 50, cursor })}`, undefined, o);
  return { items: result.teammates, nextCursor: result.nextCursor };
}
export async function listInvitations(cursor: string | null, o?: Opts): Promise<Page<Invitation>> {
  const result = await request<{ invitations: Invitation[]; nextCursor: string | null }>('GET', `/api/team/invitations${query({ limit: 50, cursor })}`, undefined, o);
  return { items: result.invitations, nextCursor: result.nextCursor };
}
export const inviteTeammate = (email: string, role: Role) =>
  request<{ invitation: Invitation; invitationUrl: string; emailed: boolean }>('POST', '/api/team/invitations', { email, role });
export const revokeInvitation = (id: string) => request<void>('DELETE', `/api/team/invitations/${encodeURIComponent(id)}`);
export const changeTeammateRole = async (id: string, role: Role) =>
  (await request<{ teammate: Teammate }>('PATCH', `/api/team/${encodeURIComponent(id)}`, { role })).teammate;
export const removeTeammate = (id: string) => request<void>('DELETE', `/api/team/${encodeURIComponent(id)}`);
export const setMyAvailability = async (availability: Availability) =>
  (await request<{ availability: Availability }>('PUT', '/api/team/me/availability', { availability })).availability;
export const getAutoAssignment = async (o?: Opts) => (await request<{ autoAssignment: AutoAssignment }>('GET', '/api/settings/auto-assignment', undefined, o)).autoAssignment;
export const setAutoAssignment = async (settings: AutoAssignment) =>
  (await request<{ autoAssignment: AutoAssignment }>('PUT', '/api/settings/auto-assignment', settings)).autoAssignment;
/** The caller's own name (sign-up's body is fixed by the spec, so the name follows it in this call). */
export const setOwnName = async (name: string) => (await request<{ teammate: Teammate }>('PUT', '/api/team/me/name', { name })).teammate;

export const previewInvitation = async (token: string, o?: Opts) =>
  (await publicRequest<{ invitation: InvitationPreview }>('POST', '/api/auth/invitation', { token }, o)).invitation;
/** Accepting signs the new teammate in (the login response). */
export async function acceptInvitation(token: string, name: string, password: string): Promise<User> {
  const result = await publicRequest<{ session: Session; user: User }>('POST', '/api/auth/accept-invitation', { token, name, password });
  setSession(result.session);
  return result.user;
}

// --- analytics ----------------------------------------------------------------------------
export const getAnalytics = (params: { from?: string; to?: string; integrationId?: number; agentId?: string }, o?: Opts) =>
  request<AnalyticsReport>('GET', `/api/analytics${query(params)}`, undefined, o);
export const getMyNotifications = async (o?: Opts) => (await request<{ notifications: NotificationChoices }>('GET', '/api/me/notifications', undefined, o)).notifications;
export const setMyNotifications = async (choices: Partial<Omit<NotificationChoices, 'emailAvailable'>>) =>
  (await request<{ notifications: NotificationChoices }>('PUT', '/api/me/notifications', choices)).notifications;
export const getCompanyTimezone = async (o?: Opts) => (await request<{ timezone: string }>('GET', '/api/settings/timezone', undefined, o)).timezone;
export const setCompanyTimezone = async (timezone: string) => (await request<{ timezone: string }>('PUT', '/api/settings/timezone', { timezone })).timezone;
