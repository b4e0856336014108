// The server's request and response shapes, inferred from the zod schemas its routes validate with, so a change on the
// server fails the dashboard's type-check instead of drifting from a copy. Every import here is `import type`: erased at
// build, no server code or zod reaches the browser bundle. This is the only dashboard module that imports from src/
// (.dependency-cruiser.cjs, rules dashboard-*).
import type { z } from 'zod';
import type * as provenance from '../../../../src/domain/answers/provenance.js';
import type * as actionDefinition from '../../../../src/domain/actions/definition.js';
import type * as cannedReplyEvents from '../../../../src/domain/cannedReplies/events.js';
import type * as customerEvents from '../../../../src/domain/customers/events.js';
import type * as agentEvents from '../../../../src/domain/agents/events.js';
import type * as integrationEvents from '../../../../src/domain/integrations/events.js';
import type * as documentContent from '../../../../src/domain/knowledge/documents/content.js';
import type * as playgroundEvents from '../../../../src/domain/playground/events.js';
import type * as actions from '../../../../src/http/routes/actions.schemas.js';
import type * as actionCalls from '../../../../src/http/routes/actionCalls.schemas.js';
import type * as agents from '../../../../src/http/routes/agents.schemas.js';
import type * as agentExperiments from '../../../../src/http/routes/agentExperiments.schemas.js';
import type * as agentReleases from '../../../../src/http/routes/agentReleases.schemas.js';
import type * as agentTests from '../../../../src/http/routes/agentTests.schemas.js';
import type * as agentVersions from '../../../../src/http/routes/agentVersions.schemas.js';
import type * as aiBacklog from '../../../../src/http/routes/aiBacklog.schemas.js';
import type * as analytics from '../../../../src/http/routes/analytics.schemas.js';
import type * as apiTokens from '../../../../src/http/routes/apiTokens.schemas.js';
import type * as assignment from '../../../../src/http/routes/assignment.schemas.js';
import type * as businessHours from '../../../../src/http/routes/businessHours.schemas.js';
import type * as cannedReplies from '../../../../src/http/routes/cannedReplies.schemas.js';
import type * as csat from '../../../../src/http/routes/csat.schemas.js';
import type * as customers from '../../../../src/http/routes/customers.schemas.js';
import type * as auth from '../../../../src/http/routes/auth.schemas.js';
import type * as billing from '../../../../src/http/routes/billing.schemas.js';
import type * as conversations from '../../../../src/http/routes/conversations.schemas.js';
import type * as conversationTriage from '../../../../src/http/routes/conversationTriage.schemas.js';
import type * as sla from '../../../../src/http/routes/sla.schemas.js';
import type * as supportTeams from '../../../../src/http/routes/supportTeams.schemas.js';
import type * as integrations from '../../../../src/http/routes/integrations.schemas.js';
import type * as knowledgeFiles from '../../../../src/http/routes/knowledgeFiles.schemas.js';
import type * as knowledgeBase from '../../../../src/http/routes/knowledgeBase.schemas.js';
import type * as llmConfig from '../../../../src/http/routes/llmConfig.schemas.js';
import type * as notifications from '../../../../src/http/routes/notifications.schemas.js';
import type * as inAppNotifications from '../../../../src/http/routes/inAppNotifications.schemas.js';
import type * as notes from '../../../../src/http/routes/notes.schemas.js';
import type * as retention from '../../../../src/http/routes/retention.schemas.js';
import type * as playground from '../../../../src/http/routes/playground.schemas.js';
import type * as replays from '../../../../src/http/routes/replays.schemas.js';
import type * as search from '../../../../src/http/routes/search.schemas.js';
import type * as team from '../../../../src/http/routes/team.schemas.js';
import type * as testMessage from '../../../../src/http/routes/testMessage.schemas.js';
import type * as webhookLogs from '../../../../src/http/routes/platformWebhookLogs.schemas.js';
import type * as webhookDeliveries from '../../../../src/http/routes/webhookDeliveries.schemas.js';
import type * as webhookEndpoints from '../../../../src/http/routes/webhookEndpoints.schemas.js';

type RouteSchema = { response: Record<number, z.ZodType> };

/** The JSON a route answers with `status` (200 unless given). */
export type Reply<S extends RouteSchema, Status extends keyof S['response'] = 200> = z.output<S['response'][Status]>;
/** What a route accepts as its body: defaults may be left out. */
export type Body<S extends { body: z.ZodType }> = z.input<S['body']>;
/** What a route accepts in its query string. */
export type Query<S extends { querystring: z.ZodType }> = z.input<S['querystring']>;

/**
 * The routes' schema modules, so an api function names the route it calls: `request<Reply<typeof integrations.getIntegrationSchema>>`
 * takes the answer's wrapper key and its status from the server, next to the URL.
 */
export type {
  actions,
  agentReleases,
  agents,
  aiBacklog,
  agentTests,
  agentVersions,
  apiTokens,
  assignment,
  auth,
  analytics,
  billing,
  cannedReplies,
  conversations,
  customers,
  integrations,
  knowledgeBase,
  knowledgeFiles,
  llmConfig,
  notifications,
  inAppNotifications,
  notes,
  retention,
  replays,
  supportTeams,
  team,
  testMessage,
  webhookDeliveries,
  webhookLogs,
};

/**
 * A dashboard list of a server enum's values (for a select): fails the type-check when the server adds a value the
 * list lacks, or when the list names one the server does not know.
 */
export const allOf =
  <T extends string>() =>
  <const L extends readonly T[]>(list: L & ([T] extends [L[number]] ? unknown : { missing: Exclude<T, L[number]> })): L =>
    list;

/**
 * A server limit as its literal type. The browser cannot import the server's constant, so the dashboard keeps its own
 * value and checks it with `satisfies ServerLimits[…]`; a limit the server computes (type `number`) would check
 * nothing, so it is `never` here and every copy of it fails until the server writes it as a literal.
 */
type Limit<T extends number> = number extends T ? never : T;
export type ServerLimits = {
  /** Characters of a playground question. */
  playgroundText: Limit<(typeof playgroundEvents.PLAYGROUND_LIMITS)['text']>;
  /** Characters of a search query. */
  searchQuery: Limit<typeof search.MAX_SEARCH_QUERY_LENGTH>;
  /** Characters of a customer's note. */
  customerNote: Limit<(typeof customerEvents.CUSTOMER_LIMITS)['note']>;
  /** Tags on one customer. */
  customerTags: Limit<(typeof customerEvents.CUSTOMER_LIMITS)['tags']>;
  /** Characters of a canned reply's text. */
  cannedText: Limit<(typeof cannedReplyEvents.CANNED_REPLY_LIMITS)['text']>;
  /** Characters of an integration's test message. */
  testMessage: Limit<typeof testMessage.TEST_MESSAGE_MAX_LENGTH>;
  /** Days in one analytics range. */
  analyticsDays: Limit<typeof analytics.MAX_ANALYTICS_DAYS>;
  /** Characters of a web chat greeting. */
  webchatGreeting: Limit<typeof integrationEvents.WEBCHAT_GREETING_MAX_LENGTH>;
  /** Minutes before a handed-off conversation goes back to the AI. */
  handBackMinutes: Limit<typeof agentEvents.MAX_HAND_BACK_MINUTES>;
  /** Bytes of UTF-8 in one knowledge-base document. */
  documentBytes: Limit<typeof documentContent.MAX_DOCUMENT_BYTES>;
};

// The action log and per-action analytics.
export type ActionCall = Reply<typeof actionCalls.getActionCallSchema>['call'];
export type ActionCallPage = Reply<typeof actionCalls.listActionCallsSchema>;
export type ActionCallQuery = Query<typeof actionCalls.listActionCallsSchema>;
export type ActionAnalytics = Reply<typeof actionCalls.actionAnalyticsSchema>;
export type ActionAnalyticsRange = Query<typeof actionCalls.actionAnalyticsSchema>;

// Agent experiments.
export type Experiment = Reply<typeof agentExperiments.getExperimentSchema>['experiment'];
export type ExperimentPage = Reply<typeof agentExperiments.listExperimentsSchema>;
export type ExperimentInput = Body<typeof agentExperiments.startExperimentSchema>;
export type ExperimentStarted = Reply<typeof agentExperiments.startExperimentSchema, 201>;
export type ExperimentEnded = Reply<typeof agentExperiments.endExperimentSchema>;
export type ExperimentEnd = Body<typeof agentExperiments.endExperimentSchema>;

// Agent versions: history, diff, publish and rollback.
export type VersionPage = Reply<typeof agentVersions.listVersionsSchema>;
export type AgentVersion = VersionPage['versions'][number];
export type DraftChanges = Body<typeof agentVersions.saveDraftSchema>;
export type DraftSaved = Reply<typeof agentVersions.saveDraftSchema, 201>;
export type VersionDiff = Reply<typeof agentVersions.diffSchema>['diff'];
export type Released = Reply<typeof agentVersions.publishSchema>;
export type PublishBody = Body<typeof agentVersions.publishSchema>;
export type RollbackBody = Body<typeof agentVersions.rollbackSchema>;
export type PublicationPage = Reply<typeof agentVersions.listPublicationsSchema>;

// Agent test cases and runs.
export type TestCase = Reply<typeof agentTests.createTestCaseSchema, 201>['testCase'];
export type TestCasePage = Reply<typeof agentTests.listTestCasesSchema>;
export type TestCaseInput = Body<typeof agentTests.createTestCaseSchema>;
export type CaseFromConversation = Body<typeof agentTests.caseFromConversationSchema>;
export type TestRun = Reply<typeof agentTests.getTestRunSchema>['run'];
export type TestRunStarted = Reply<typeof agentTests.startTestRunSchema, 202>;
export type TestRunStart = Body<typeof agentTests.startTestRunSchema>;
export type TestRunEstimate = Reply<typeof agentTests.estimateTestRunSchema>['estimate'];
export type TestRunEstimateBody = Body<typeof agentTests.estimateTestRunSchema>;

// Release checks: the version's test cases and a replay of recent conversations, before it is published.
export type ReleaseEstimate = Reply<typeof agentReleases.estimateReleaseCheckSchema>['estimate'];
export type ReleaseEstimateBody = Body<typeof agentReleases.estimateReleaseCheckSchema>;
export type ReleaseCheckStarted = Reply<typeof agentReleases.startReleaseCheckSchema, 202>;
export type ReleaseCheckStart = Body<typeof agentReleases.startReleaseCheckSchema>;
export type ReleaseReport = Reply<typeof agentReleases.getReleaseCheckSchema>;

// Outbound webhooks: endpoints, their delivery log, test events, resends, replays and the credits-low setting.
export type WebhookEndpointPage = Reply<typeof webhookEndpoints.listWebhookEndpointsSchema>;
export type WebhookEndpointOne = Reply<typeof webhookEndpoints.getWebhookEndpointSchema>;
export type WebhookEndpointWithSecret = Reply<typeof webhookEndpoints.createWebhookEndpointSchema, 201>;
export type WebhookEndpointInput = Body<typeof webhookEndpoints.createWebhookEndpointSchema>;
export type WebhookEndpointChanges = Body<typeof webhookEndpoints.updateWebhookEndpointSchema>;
export type WebhookReplayBody = Body<typeof webhookEndpoints.replayWebhookEndpointSchema>;
export type WebhookReplayStarted = Reply<typeof webhookEndpoints.replayWebhookEndpointSchema, 202>;
export type WebhookSettings = Reply<typeof webhookEndpoints.getWebhookSettingsSchema>;
export type WebhookSettingsBody = Body<typeof webhookEndpoints.putWebhookSettingsSchema>;
export type WebhookDeliveryPage = Reply<typeof webhookDeliveries.listWebhookDeliveriesSchema>;
/** What one send did (a test event or a resend), as the delivery log will show it. */
export type SentAttempt = Reply<typeof webhookDeliveries.sendTestEventSchema>['attempt'];

// Accounts and team.
export type LoginReply = Reply<typeof auth.loginSchema>;
export type RegisterReply = Reply<typeof auth.registerSchema, 201>;
export type Me = Reply<typeof auth.meSchema>;
export type TeammatePage = Reply<typeof team.listTeamSchema>;
export type InvitationPage = Reply<typeof team.listInvitationsSchema>;
export type InvitationPreview = Reply<typeof team.previewInvitationSchema>['invitation'];
export type ApiTokenPage = Reply<typeof apiTokens.listApiTokensSchema>;
export type AutoAssignmentSettings = Reply<typeof assignment.getAutoAssignmentSchema>;

// Integrations, their webhook log, agents, the LLM configuration.
export type Integration = Reply<typeof integrations.getIntegrationSchema>['integration'];
export type IntegrationInput = Body<typeof integrations.createIntegrationSchema>;
export type IntegrationChanges = Body<typeof integrations.updateIntegrationSchema>;
export type WebhookLogDetail = Reply<typeof webhookLogs.getWebhookLogSchema>['log'];
export type WebhookLogPage = Reply<typeof webhookLogs.listWebhookLogsSchema>;
export type Agent = Reply<typeof agents.getAgentSchema>['agent'];
export type AgentInput = Body<typeof agents.createAgentSchema>;
export type LlmConfig = Reply<typeof llmConfig.getLlmConfigSchema>['llmConfig'];
export type LlmConfigInput = Body<typeof llmConfig.putLlmConfigSchema>;

// The knowledge base.
export type KbDocumentPage = Reply<typeof knowledgeBase.listDocumentsSchema>;
export type KbDocumentWithContent = Reply<typeof knowledgeBase.getDocumentSchema>['document'];
export type KbSearchResult = Reply<typeof knowledgeBase.searchKnowledgeSchema>['results'][number];

// Conversations, the inbox, the pipeline, credits, analytics.
export type ConversationDetail = Reply<typeof conversations.getConversationSchema>;
export type ConversationPage = Reply<typeof conversations.listConversationsSchema>;
export type ConversationEvent = Reply<typeof conversations.conversationEventsSchema>['events'][number];
export type InboxViews = Reply<typeof conversations.inboxViewsSchema>['views'];
export type NotificationChoices = Reply<typeof notifications.getNotificationsSchema>['notifications'];
export type AiBacklog = Reply<typeof aiBacklog.aiBacklogRouteSchema>['aiBacklog'];
export type Pipeline = Reply<typeof billing.pipelineSchema>['pipeline'];
export type Credits = Reply<typeof billing.creditsRouteSchema>['credits'];
export type AnalyticsReport = Reply<typeof analytics.analyticsSchema>;

// What produced an AI answer (messages, playground and replay answers).
export type AnswerProvenance = z.output<typeof provenance.answerProvenanceSchema>;

// Replay evaluations.
export type ReplaySelection = Body<typeof replays.estimateReplaySchema>;
export type ReplayEstimate = Reply<typeof replays.estimateReplaySchema>['estimate'];
export type ReplayStart = Body<typeof replays.startReplaySchema>;
export type ReplayStarted = Reply<typeof replays.startReplaySchema, 201>;
export type ReplayPage = Reply<typeof replays.listReplaysSchema>;
export type ReplayReport = Reply<typeof replays.getReplaySchema>;
export type ReplayCancelled = Reply<typeof replays.cancelReplaySchema>;

// The agent playground.
export type PlaygroundSession = Reply<typeof playground.startSessionSchema, 201>;
export type PlaygroundStart = Body<typeof playground.startSessionSchema>;
export type PlaygroundAsked = Reply<ReturnType<typeof playground.askQuestionSchema>>;
export type PlaygroundQuestion = Body<ReturnType<typeof playground.askQuestionSchema>>;
export type PlaygroundSessionPage = Reply<typeof playground.listSessionsSchema>;

// The company's actions.
export type ActionView = Reply<typeof actions.getActionSchema>['action'];
export type ActionPage = Reply<typeof actions.listActionsSchema>;
export type ActionCreate = Body<typeof actions.createActionSchema>;
export type ActionChanges = Body<typeof actions.updateActionSchema>;
export type ActionTestBody = Body<typeof actions.testActionSchema>;
export type ActionTest = Reply<typeof actions.testActionSchema>['test'];
export type ActionMethod = z.output<typeof actionDefinition.actionMethod>;
export type ActionParameter = z.output<typeof actionDefinition.actionParameter>;
export type IdentitySource = z.output<typeof actionDefinition.identitySource>;

// Business hours.
export type BusinessHours = Reply<typeof businessHours.getBusinessHoursSchema>;
export type BusinessHoursInput = Body<typeof businessHours.setBusinessHoursSchema>;

// Satisfaction survey results.
export type CsatReport = Reply<typeof csat.csatReportSchema>;
export type CsatRange = Query<typeof csat.csatReportSchema>;
export type CsatResponsePage = Reply<typeof csat.csatResponsesSchema>;

// Search over messages and customer names.
export type SearchPage = Reply<typeof search.searchSchema>;

// Customer profiles and canned replies.
export type CustomerOne = Reply<typeof customers.getCustomerSchema>;
export type CustomerNote = Body<typeof customers.setNoteSchema>;
export type CustomerTags = Body<typeof customers.setTagsSchema>;
export type CustomerConversationPage = Reply<typeof customers.customerConversationsSchema>;
export type CannedReplyPage = Reply<typeof cannedReplies.listCannedRepliesSchema>;
export type CannedReplyInput = Body<typeof cannedReplies.createCannedReplySchema>;
export type CannedReplyChanges = Body<typeof cannedReplies.updateCannedReplySchema>;

// Triage (priority, snooze) and SLA policies.
export type PriorityInput = Body<typeof conversationTriage.setPrioritySchema>;
export type PriorityChanged = Reply<typeof conversationTriage.setPrioritySchema>;
export type Snoozed = Reply<typeof conversationTriage.snoozeSchema>;
export type SlaPolicy = Reply<typeof sla.getSlaPolicySchema>;
export type SlaPolicyInput = Body<typeof sla.setSlaPolicySchema>;
export type SlaReport = Reply<typeof sla.slaAnalyticsSchema>;
