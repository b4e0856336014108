import { invitationsProjection } from './invitations/invitationsProjection.js';
import { loginSessionsProjection } from './loginSessions/loginSessionsProjection.js';
import { teammatesProjection } from './teammates/teammatesProjection.js';
import { agentsProjection } from './agents/agentsProjection.js';
import { agentVersionsProjection } from './agentVersions/agentVersionsProjection.js';
import { agentTestCasesProjection } from './agentTestCases/agentTestCasesProjection.js';
import { agentExperimentsProjection } from './agentExperiments/agentExperimentsProjection.js';
import { conversationReadsProjection } from './conversations/conversationReadsProjection.js';
import { conversationsProjection } from './conversations/conversationsProjection.js';
import { knowledgeDocumentsProjection } from './knowledgeDocuments/knowledgeDocumentsProjection.js';
import { apiTokensProjection } from './apiTokens/apiTokensProjection.js';
import { companiesProjection } from './companies/companiesProjection.js';
import { creditsProjection } from './credits/creditsProjection.js';
import { pipelinesProjection } from './pipelines/pipelinesProjection.js';
import { conversationRefsProjection } from './conversationRefs/conversationRefsProjection.js';
import { integrationsProjection } from './integrations/integrationsProjection.js';
import type { Projection } from './projection.js';
import { actionCallsProjection } from './actionCalls/actionCallsProjection.js';
import { analyticsProjection } from './analytics/analyticsProjection.js';
import { csatProjection } from './csat/csatProjection.js';
import { searchProjection } from './search/searchProjection.js';
import { customerConversationsProjection } from './customerConversations/customerConversationsProjection.js';
import { cannedRepliesProjection } from './cannedReplies/cannedRepliesProjection.js';
import { supportTeamsProjection } from './supportTeams/supportTeamsProjection.js';
import { webhookLogsProjection } from './platformWebhookLogs/webhookLogsProjection.js';
import { replaysProjection } from './replays/replaysProjection.js';
import { playgroundSessionsProjection } from './playgroundSessions/playgroundSessionsProjection.js';
import { assignmentDeskProjection } from './assignmentDesk/assignmentDeskProjection.js';
import { publicEventsProjection } from './publicEvents/publicEventsProjection.js';
import { webhookEndpointsProjection } from './webhookEndpoints/webhookEndpointsProjection.js';
import { webhookDeliveriesProjection } from './webhookDeliveries/webhookDeliveriesProjection.js';
import { actionsProjection } from './actions/actionsProjection.js';
import { pendingActionCallsProjection } from './pendingActionCalls/pendingActionCallsProjection.js';
import { actionResumesProjection } from './actionResumes/actionResumesProjection.js';
import { runningTestRunsProjection } from './runningTestRuns/runningTestRunsProjection.js';
import { notificationsProjection } from './notifications/notificationsProjection.js';
import { slaProjection } from './sla/slaProjection.js';
import { retentionProjection } from './retention/retentionProjection.js';

/** Every read model the dashboard and API query. */
export const allProjections: Projection[] = [companiesProjection, teammatesProjection, invitationsProjection, loginSessionsProjection, pipelinesProjection, creditsProjection, apiTokensProjection, integrationsProjection, webhookLogsProjection, conversationRefsProjection,
  conversationsProjection,
  conversationReadsProjection,
  agentsProjection,
  agentVersionsProjection,
  agentTestCasesProjection,
  agentExperimentsProjection,
  knowledgeDocumentsProjection,
  searchProjection,
  customerConversationsProjection,
  cannedRepliesProjection,
  supportTeamsProjection,
  analyticsProjection,
  actionCallsProjection,
  csatProjection,
  replaysProjection,
  playgroundSessionsProjection,
  assignmentDeskProjection,
  publicEventsProjection,
  webhookEndpointsProjection,
  webhookDeliveriesProjection,
  actionsProjection,
  pendingActionCallsProjection,
  actionResumesProjection,
  runningTestRunsProjection,
  notificationsProjection,
  slaProjection,
  retentionProjection,
];
