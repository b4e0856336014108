import { agentEvents } from './agents/events.js';
import { knowledgeDocumentEvents } from './knowledge/documents.js';
import { knowledgeQuotaEvents } from './knowledge/quota.js';
import { llmConfigEvents } from './llm/events.js';
import { emailReservationEvents } from './accounts/emailReservation.js';
import { userEvents } from './accounts/user.js';
import { teamEvents } from './accounts/team.js';
import { invitationEvents } from './accounts/invitation.js';
import { apiTokenEvents } from './apiTokens/events.js';
import { companyEvents } from './company/company.js';
import { companyTimezoneEvents } from './company/timezone.js';
import { conversationEvents } from './conversations/events.js';
import { platformRefEvents } from './conversations/platformRef.js';
import { readMarkerEvents } from './conversations/readMarker.js';
import { integrationEvents } from './integrations/events.js';
import { webhookLogEvents } from './webhooks/webhookLog.js';
import { creditEvents } from './credits/events.js';
import { mergeCatalogs } from './eventCatalog.js';
import { customerEvents } from './customers/customer.js';
import { cannedReplyEvents } from './cannedReplies/cannedReplies.js';
import { sequenceEvents } from './sequence/sequence.js';
import { loginSessionEvents } from './logins/loginSession.js';
import { playgroundEvents } from './playground/playground.js';
import { replayEvents } from './replays/events.js';

/** Every event type the service stores, with the schema its data is validated against on write and read. */
export const eventCatalog = mergeCatalogs(
  sequenceEvents,
  emailReservationEvents,
  userEvents,
  teamEvents,
  invitationEvents,
  companyEvents,
  companyTimezoneEvents,
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
  playgroundEvents,
  replayEvents,
);
