import type { z } from 'zod';
import { agentEvents } from './agents/events.js';
import { agentTestCaseEvents } from './agents/testCases/events.js';
import { agentTestRunEvents } from './agents/testRuns/events.js';
import { knowledgeDocumentEvents } from './knowledge/documents/events.js';
import { knowledgeQuotaEvents } from './knowledge/quota/events.js';
import { llmConfigEvents } from './llm/events.js';
import { emailReservationEvents } from './accounts/emailReservation/events.js';
import { userEvents } from './accounts/user/events.js';
import { teamEvents } from './accounts/team/events.js';
import { invitationEvents } from './accounts/invitation/events.js';
import { notificationPreferenceEvents } from './accounts/notifications/events.js';
import { notificationSentEvents } from './accounts/notifications/sent/events.js';
import { operatorMessageKeyEvents } from './conversations/operatorMessageKey/events.js';
import { apiTokenEvents } from './apiTokens/events.js';
import { companyEvents } from './company/events.js';
import { companyTimezoneEvents } from './company/timezone/events.js';
import { autoAssignmentEvents } from './company/autoAssignment/events.js';
import { noteSharingEvents } from './company/noteSharing/events.js';
import { retentionEvents } from './company/retention/events.js';
import { inAppNotificationEvents } from './accounts/notifications/inApp/events.js';
import { slaPolicyEvents } from './company/slaPolicy/events.js';
import { redactionEvents } from './company/redaction/events.js';
import { availabilityEvents } from './accounts/availability/events.js';
import { businessHoursEvents } from './company/businessHours/events.js';
import { conversationEvents } from './conversations/events.js';
import { platformRefEvents } from './conversations/platformRef/events.js';
import { readMarkerEvents } from './conversations/readMarker/events.js';
import { sendEvents } from './conversations/send/events.js';
import { integrationEvents } from './integrations/events.js';
import { webhookLogEvents } from './platformWebhooks/events.js';
import { creditEvents } from './credits/events.js';
import { chargeEvents } from './credits/charge/events.js';
import { customerEvents } from './customers/events.js';
import { cannedReplyEvents } from './cannedReplies/events.js';
import { supportTeamEvents } from './supportTeams/events.js';
import { sequenceEvents } from './sequence/events.js';
import { loginSessionEvents } from './logins/events.js';
import { playgroundEvents } from './playground/events.js';
import { playgroundActionCallEvents } from './playground/actionCalls/events.js';
import { replayEvents } from './replays/events.js';
import { webhookEndpointEvents } from './webhookEndpoints/events.js';
import { actionEvents } from './actions/events.js';
import { webhookDeliveryEvents } from './webhookDeliveries/events.js';

/** Every event type the system may store, with the zod schema of its data. */
export type EventCatalog = Record<string, z.ZodType>;

/** Builds the catalog from each aggregate's schemas, refusing a type name defined twice. */
export function mergeCatalogs(...parts: EventCatalog[]): EventCatalog {
  const out: EventCatalog = {};
  for (const part of parts) {
    for (const [type, schema] of Object.entries(part)) {
      if (out[type]) throw new Error(`event type ${type} defined twice`);
      out[type] = schema;
    }
  }
  return out;
}

/** Every event type the service stores, with the schema its data is validated against on write and read. */
export const eventCatalog = mergeCatalogs(
  sequenceEvents,
  emailReservationEvents,
  userEvents,
  teamEvents,
  invitationEvents,
  notificationPreferenceEvents,
  notificationSentEvents,
  companyEvents,
  companyTimezoneEvents,
  businessHoursEvents,
  loginSessionEvents,
  apiTokenEvents,
  creditEvents,
  chargeEvents,
  integrationEvents,
  webhookLogEvents,
  conversationEvents,
  platformRefEvents,
  readMarkerEvents,
  operatorMessageKeyEvents,
  sendEvents,
  agentEvents,
  agentTestCaseEvents,
  agentTestRunEvents,
  llmConfigEvents,
  knowledgeDocumentEvents,
  knowledgeQuotaEvents,
  customerEvents,
  cannedReplyEvents,
  supportTeamEvents,
  playgroundEvents,
  playgroundActionCallEvents,
  replayEvents,
  availabilityEvents,
  autoAssignmentEvents,
  noteSharingEvents,
  retentionEvents,
  inAppNotificationEvents,
  slaPolicyEvents,
  redactionEvents,
  webhookEndpointEvents,
  actionEvents,
  webhookDeliveryEvents,
);
