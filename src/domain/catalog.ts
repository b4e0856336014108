import { agentEvents } from './agents/agent.js';
import { knowledgeDocumentEvents } from './knowledge/documents.js';
import { knowledgeQuotaEvents } from './knowledge/quota.js';
import { llmConfigEvents } from './llm/llmConfig.js';
import { emailReservationEvents } from './accounts/emailReservation.js';
import { userEvents } from './accounts/user.js';
import { teamEvents } from './accounts/team.js';
import { invitationEvents } from './accounts/invitation.js';
import { apiTokenEvents } from './apiTokens/apiToken.js';
import { companyEvents } from './company/company.js';
import { conversationEvents } from './conversations/events.js';
import { platformRefEvents } from './conversations/platformRef.js';
import { readMarkerEvents } from './conversations/readMarker.js';
import { integrationEvents } from './integrations/integration.js';
import { webhookLogEvents } from './webhooks/webhookLog.js';
import { creditEvents } from './credits/credits.js';
import { mergeCatalogs } from './eventCatalog.js';
import { customerEvents } from './customers/customer.js';
import { cannedReplyEvents } from './cannedReplies/cannedReplies.js';
import { sequenceEvents } from './sequence/sequence.js';
import { loginSessionEvents } from './logins/loginSession.js';

/** Every event type the service stores, with the schema its data is validated against on write and read. */
export const eventCatalog = mergeCatalogs(
  sequenceEvents,
  emailReservationEvents,
  userEvents,
  teamEvents,
  invitationEvents,
  companyEvents,
  loginSessionEvents,
  apiTokenEvents,
  creditEvents,
  integrationEvents,
  webhookLogEvents,
  conversationEvents,
  platformRefEvents,
  readMarkerEvents,
  agentEvents,
  llmConfigEvents,
  knowledgeDocumentEvents,
  knowledgeQuotaEvents,
  customerEvents,
  cannedReplyEvents,
);
