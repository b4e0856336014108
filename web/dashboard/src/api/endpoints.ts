// One typed function per API call the dashboard makes.
import { publicRequest, query, request, setSession, type RequestOptions } from './client.js';
import type {
  AgentInput,
  Conversation,
  InboxView,
  IntegrationChanges,
  IntegrationInput,
  Invitation,
  Role,
  Teammate,
  Availability,
  AutoAssignment,
  LlmConfigInput,
  NotificationChoices,
  Page,
  SessionState,
  User,
  WebhookLog,
  WebhookOutcome,
} from './types.js';
import type {
  Body,
  Reply,
  ServerLimits,
  agents,
  aiBacklog,
  analytics,
  apiTokens,
  assignment,
  auth,
  billing,
  conversations,
  integrations,
  knowledgeBase,
  llmConfig,
  notifications,
  team,
  testMessage,
  webhookLogs,
} from './serverTypes.js';

type Opts = RequestOptions;
/** pause, resume, reopen and unassign share one schema; close has its own (an optional resolution), with the same answer. */
type ConversationChanged = Reply<ReturnType<typeof conversations.conversationActionSchema>>;

// --- auth ---------------------------------------------------------------------------------
export async function login(email: string, password: string): Promise<User> {
  const result = await publicRequest<Reply<typeof auth.loginSchema>>('POST', '/api/auth/login', { email, password });
  setSession(result.session);
  return result.user;
}

export function register(email: string, password: string, companyName: string) {
  return publicRequest<Reply<typeof auth.registerSchema, 201>>('POST', '/api/auth/register', { email, password, companyName });
}

export const getMe = (o?: Opts) => request<Reply<typeof auth.meSchema>>('GET', '/api/auth/me', undefined, o);

// --- integrations -----------------------------------------------------------------------
export const listIntegrations = async (o?: Opts) =>
  (await request<Reply<typeof integrations.listIntegrationsSchema>>('GET', '/api/integrations?limit=200', undefined, o)).integrations;
export const getIntegration = async (id: number, o?: Opts) =>
  (await request<Reply<typeof integrations.getIntegrationSchema>>('GET', `/api/integrations/${id}`, undefined, o)).integration;
export const createIntegration = async (input: IntegrationInput) =>
  (await request<Reply<typeof integrations.createIntegrationSchema, 201>>('POST', '/api/integrations', input)).integration;
export const updateIntegration = async (id: number, input: IntegrationChanges) =>
  (await request<Reply<typeof integrations.updateIntegrationSchema>>('PATCH', `/api/integrations/${id}`, input)).integration;
export const rotateIdentitySecret = async (id: number) =>
  request<Reply<typeof integrations.rotateIdentitySecretSchema>>('POST', `/api/integrations/${id}/identity-secret`);
export const deleteIntegration = (id: number) => request<void>('DELETE', `/api/integrations/${id}`);
export const registerWebhook = (id: number) =>
  request<Reply<typeof integrations.registerWebhookSchema>>('POST', `/api/integrations/${id}/register-webhook`);

/** Longest test message the server takes. */
export const TEST_MESSAGE_MAX_LENGTH = 4000 satisfies ServerLimits['testMessage'];
/** Sends a signed test customer message through the integration's webhook; answers with the conversation to open. */
export const sendTestMessage = (id: number, text: string) =>
  request<Reply<typeof testMessage.testMessageSchema, 202>>('POST', `/api/integrations/${id}/test-message`, { text } satisfies Body<typeof testMessage.testMessageSchema>);
/** Newest first; every integration of the company when `integrationId` is null. */
export async function listWebhookLogs(
  filter: { integrationId: number | null; outcome?: WebhookOutcome | null },
  cursor: string | null,
  o?: Opts,
): Promise<Page<WebhookLog>> {
  const result = await request<Reply<typeof webhookLogs.listWebhookLogsSchema>>(
    'GET',
    `/api/webhook-logs${query({ integrationId: filter.integrationId ?? undefined, outcome: filter.outcome ?? undefined, limit: 50, cursor })}`,
    undefined,
    o,
  );
  return { items: result.logs, nextCursor: result.nextCursor ?? null };
}

/** One delivery with what was kept of its payload (secrets redacted by the server). */
export const getWebhookLog = async (id: string, o?: Opts) =>
  (await request<Reply<typeof webhookLogs.getWebhookLogSchema>>('GET', `/api/webhook-logs/${encodeURIComponent(id)}`, undefined, o)).log;

// --- agents -------------------------------------------------------------------------------
/** Longest wait (30 days) before a handed-off conversation goes back to the AI. */
export const HAND_BACK_MAX_MINUTES = 43_200 satisfies ServerLimits['handBackMinutes'];
export const listAgents = async (o?: Opts) => (await request<Reply<typeof agents.listAgentsSchema>>('GET', '/api/agents', undefined, o)).agents;
export const getAgent = async (id: string, o?: Opts) =>
  (await request<Reply<typeof agents.getAgentSchema>>('GET', `/api/agents/${encodeURIComponent(id)}`, undefined, o)).agent;
export const createAgent = async (input: AgentInput) => (await request<Reply<typeof agents.createAgentSchema, 201>>('POST', '/api/agents', input)).agent;
export const updateAgent = async (id: string, input: Partial<AgentInput>) =>
  (await request<Reply<typeof agents.updateAgentSchema>>('PATCH', `/api/agents/${encodeURIComponent(id)}`, input)).agent;
export const deleteAgent = (id: string) => request<void>('DELETE', `/api/agents/${encodeURIComponent(id)}`);

// --- LLM ----------------------------------------------------------------------------------
export const getLlmConfig = async (o?: Opts) => (await request<Reply<typeof llmConfig.getLlmConfigSchema>>('GET', '/api/llm-config', undefined, o)).llmConfig;
export const saveLlmConfig = async (input: LlmConfigInput) =>
  (await request<Reply<typeof llmConfig.putLlmConfigSchema>>('PUT', '/api/llm-config', input)).llmConfig;
/**
 * Not in API.md: tests a configuration with a tiny completion — the one given (the form's, unsaved; an omitted
 * apiKey uses the stored key only for the stored baseUrl), or the saved one without a body.
 */
export const testLlmConfig = (input?: LlmConfigInput) => request<Reply<typeof llmConfig.testLlmConfigSchema>>('POST', '/api/llm-config/test', input);

// --- knowledge base -----------------------------------------------------------------------
/** A document's content limit (1 MiB of UTF-8). */
export const KB_DOCUMENT_MAX_BYTES = 1_048_576 satisfies ServerLimits['documentBytes'];
export const listDocuments = async (o?: Opts) =>
  (await request<Reply<typeof knowledgeBase.listDocumentsSchema>>('GET', '/api/knowledge-base/documents', undefined, o)).documents;
/** The newest document's title (the example a test message suggests); null without documents. */
export const latestDocumentTitle = async () =>
  (await request<Reply<typeof knowledgeBase.listDocumentsSchema>>('GET', '/api/knowledge-base/documents?limit=1')).documents[0]?.title ?? null;
export const createDocument = async (title: string, content: string) =>
  (await request<Reply<typeof knowledgeBase.addDocumentSchema, 201>>('POST', '/api/knowledge-base/documents', { title, content } satisfies Body<typeof knowledgeBase.addDocumentSchema>)).document;
export const getDocument = async (id: string, o?: Opts) =>
  (await request<Reply<typeof knowledgeBase.getDocumentSchema>>('GET', `/api/knowledge-base/documents/${encodeURIComponent(id)}`, undefined, o)).document;
export const updateDocument = async (id: string, body: Body<typeof knowledgeBase.reviseDocumentSchema>) =>
  (await request<Reply<typeof knowledgeBase.reviseDocumentSchema>>('PUT', `/api/knowledge-base/documents/${encodeURIComponent(id)}`, body)).document;
/** What each answer setting trades on the company's own knowledge base (the agent form's sentence). */
export const getAnswerTrade = (o?: Opts) => request<Reply<typeof knowledgeBase.answerTradeSchema>>('GET', '/api/knowledge-base/answer-trade', undefined, o);
export const deleteDocument = (id: string) => request<void>('DELETE', `/api/knowledge-base/documents/${encodeURIComponent(id)}`);
export const searchKnowledgeBase = async (q: string, o?: Opts) =>
  (await request<Reply<typeof knowledgeBase.searchKnowledgeSchema>>('GET', `/api/knowledge-base/search${query({ q })}`, undefined, o)).results;

// --- conversations ------------------------------------------------------------------------
export interface ConversationFilters {
  /** An inbox view ('' = all conversations). */
  view?: InboxView | '';
  state?: SessionState | '';
  integrationId?: number | '';
  stageId?: string;
  /** A support team's conversations: combines with the view only (the server refuses it with the other filters). */
  teamId?: string;
}

export async function listConversations(filters: ConversationFilters, cursor: string | null, limit = 50, o?: Opts): Promise<Page<Conversation>> {
  const result = await request<Reply<typeof conversations.listConversationsSchema>>(
    'GET',
    `/api/conversations${query(
      filters.teamId
        ? { view: filters.view, teamId: filters.teamId, limit, cursor }
        : { view: filters.view, state: filters.state, integrationId: filters.integrationId, stageId: filters.stageId, limit, cursor },
    )}`,
    undefined,
    o,
  );
  return { items: result.conversations, nextCursor: result.nextCursor ?? null };
}

export const getConversation = (id: string, o?: Opts) =>
  request<Reply<typeof conversations.getConversationSchema>>('GET', `/api/conversations/${encodeURIComponent(id)}`, undefined, o);
export const getConversationEvents = async (id: string, o?: Opts) =>
  (await request<Reply<typeof conversations.conversationEventsSchema>>('GET', `/api/conversations/${encodeURIComponent(id)}/events`, undefined, o)).events;
export const sessionAction = async (id: string, action: 'pause' | 'resume' | 'close' | 'reopen') =>
  (await request<ConversationChanged>('POST', `/api/conversations/${encodeURIComponent(id)}/${action}`)).conversation;
/** Close with an optional note of how it was resolved. */
export const resolveConversation = async (id: string, resolution: string) =>
  (await request<Reply<typeof conversations.closeConversationSchema>>('POST', `/api/conversations/${encodeURIComponent(id)}/close`, resolution.trim() ? { resolution: resolution.trim() } : {})).conversation;
export const assignConversation = async (id: string, assigneeId: string) =>
  (await request<Reply<typeof conversations.assignConversationSchema>>('POST', `/api/conversations/${encodeURIComponent(id)}/assign`, { assigneeId } satisfies Body<typeof conversations.assignConversationSchema>)).conversation;
export const unassignConversation = async (id: string) =>
  (await request<ConversationChanged>('POST', `/api/conversations/${encodeURIComponent(id)}/unassign`)).conversation;
const actionCallUrl = (id: string, callId: string, decision: 'approve' | 'refuse') =>
  `/api/conversations/${encodeURIComponent(id)}/action-calls/${encodeURIComponent(callId)}/${decision}`;
export const approveActionCall = async (id: string, callId: string) => (await request<Reply<typeof conversations.approveActionCallSchema>>('POST', actionCallUrl(id, callId, 'approve'))).conversation;
export const refuseActionCall = async (id: string, callId: string, reason: string) =>
  (await request<Reply<typeof conversations.refuseActionCallSchema>>('POST', actionCallUrl(id, callId, 'refuse'), reason.trim() ? { reason: reason.trim() } : {})).conversation;
export const markConversationRead = async (id: string) =>
  (await request<Reply<typeof conversations.markReadSchema>>('POST', `/api/conversations/${encodeURIComponent(id)}/read`)).conversation;
export const getConversationViews = async (o?: Opts) => (await request<Reply<typeof conversations.inboxViewsSchema>>('GET', '/api/conversations/views', undefined, o)).views;
export const getAiBacklog = async (o?: Opts) => (await request<Reply<typeof aiBacklog.aiBacklogRouteSchema>>('GET', '/api/ai-backlog', undefined, o)).aiBacklog;
/** `idempotencyKey`: the same for every attempt of one message, so an attempt whose answer was lost is not sent twice. */
export const sendOperatorMessage = (id: string, text: string, idempotencyKey: string) =>
  request<Reply<typeof conversations.operatorMessageSchema, 202>>(
    'POST',
    `/api/conversations/${encodeURIComponent(id)}/messages`,
    { text } satisfies Body<typeof conversations.operatorMessageSchema>,
    { idempotencyKey },
  );
export const setConversationStage = async (id: string, stageId: string) =>
  (await request<Reply<typeof conversations.changeStageSchema>>('PUT', `/api/conversations/${encodeURIComponent(id)}/stage`, { stageId } satisfies Body<typeof conversations.changeStageSchema>)).conversation;

export const getPipeline = async (o?: Opts) => (await request<Reply<typeof billing.pipelineSchema>>('GET', '/api/pipeline', undefined, o)).pipeline;
export const getCredits = async (o?: Opts) => (await request<Reply<typeof billing.creditsRouteSchema>>('GET', '/api/credits', undefined, o)).credits;

// --- settings -----------------------------------------------------------------------------
export const listApiTokens = async (o?: Opts) =>
  (await request<Reply<typeof apiTokens.listApiTokensSchema>>('GET', '/api/settings/api-tokens?limit=200', undefined, o)).apiTokens;
export const createApiToken = (name: string) => request<Reply<typeof apiTokens.createApiTokenSchema, 201>>('POST', '/api/settings/api-tokens', { name } satisfies Body<typeof apiTokens.createApiTokenSchema>);
export const revokeApiToken = (id: string) => request<void>('DELETE', `/api/settings/api-tokens/${encodeURIComponent(id)}`);

// --- team ---------------------------------------------------------------------------------
export async function listTeammates(cursor: string | null, o?: Opts): Promise<Page<Teammate>> {
  const result = await request<Reply<typeof team.listTeamSchema>>('GET', `/api/team${query({ limit: 50, cursor })}`, undefined, o);
  return { items: result.teammates, nextCursor: result.nextCursor };
}
export async function listInvitations(cursor: string | null, o?: Opts): Promise<Page<Invitation>> {
  const result = await request<Reply<typeof team.listInvitationsSchema>>('GET', `/api/team/invitations${query({ limit: 50, cursor })}`, undefined, o);
  return { items: result.invitations, nextCursor: result.nextCursor };
}
export const inviteTeammate = (email: string, role: Role) =>
  request<Reply<typeof team.inviteSchema, 201>>('POST', '/api/team/invitations', { email, role } satisfies Body<typeof team.inviteSchema>);
export const revokeInvitation = (id: string) => request<void>('DELETE', `/api/team/invitations/${encodeURIComponent(id)}`);
export const changeTeammateRole = async (id: string, role: Role) =>
  (await request<Reply<typeof team.changeRoleSchema>>('PATCH', `/api/team/${encodeURIComponent(id)}`, { role } satisfies Body<typeof team.changeRoleSchema>)).teammate;
export const removeTeammate = (id: string) => request<void>('DELETE', `/api/team/${encodeURIComponent(id)}`);
export const setMyAvailability = async (availability: Availability) =>
  (await request<Reply<typeof assignment.setAvailabilitySchema>>('PUT', '/api/team/me/availability', { availability } satisfies Body<typeof assignment.setAvailabilitySchema>)).availability;
export const getAutoAssignment = async (o?: Opts) => (await request<Reply<typeof assignment.getAutoAssignmentSchema>>('GET', '/api/settings/auto-assignment', undefined, o)).autoAssignment;
export const setAutoAssignment = async (settings: AutoAssignment) =>
  (await request<Reply<typeof assignment.setAutoAssignmentSchema>>('PUT', '/api/settings/auto-assignment', settings satisfies Body<typeof assignment.setAutoAssignmentSchema>)).autoAssignment;
/** The caller's own name (sign-up's body is fixed by the spec, so the name follows it in this call). */
export const setOwnName = async (name: string) => (await request<Reply<typeof team.nameSelfSchema>>('PUT', '/api/team/me/name', { name } satisfies Body<typeof team.nameSelfSchema>)).teammate;

export const previewInvitation = async (token: string, o?: Opts) =>
  (await publicRequest<Reply<typeof team.previewInvitationSchema>>('POST', '/api/auth/invitation', { token } satisfies Body<typeof team.previewInvitationSchema>, o)).invitation;
/** Accepting signs the new teammate in (the login response). */
export async function acceptInvitation(token: string, name: string, password: string): Promise<User> {
  const result = await publicRequest<Reply<typeof team.acceptInvitationSchema>>('POST', '/api/auth/accept-invitation', { token, name, password } satisfies Body<typeof team.acceptInvitationSchema>);
  setSession(result.session);
  return result.user;
}

// --- analytics ----------------------------------------------------------------------------
/** Longest range the server reports on. */
export const MAX_ANALYTICS_DAYS = 366 satisfies ServerLimits['analyticsDays'];
export const getAnalytics = (params: { from?: string; to?: string; integrationId?: number; agentId?: string }, o?: Opts) =>
  request<Reply<typeof analytics.analyticsSchema>>('GET', `/api/analytics${query(params)}`, undefined, o);
export const getMyNotifications = async (o?: Opts) => (await request<Reply<typeof notifications.getNotificationsSchema>>('GET', '/api/me/notifications', undefined, o)).notifications;
export const setMyNotifications = async (choices: Partial<Omit<NotificationChoices, 'emailAvailable'>>) =>
  (await request<Reply<typeof notifications.putNotificationsSchema>>('PUT', '/api/me/notifications', choices)).notifications;
export const getCompanyTimezone = async (o?: Opts) => (await request<Reply<typeof analytics.getTimezoneSchema>>('GET', '/api/settings/timezone', undefined, o)).timezone;
export const setCompanyTimezone = async (timezone: string) => (await request<Reply<typeof analytics.setTimezoneSchema>>('PUT', '/api/settings/timezone', { timezone } satisfies Body<typeof analytics.setTimezoneSchema>)).timezone;
