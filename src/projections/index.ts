import { agentsProjection } from './agents/agentsProjection.js';
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
import { webhookLogsProjection } from './webhookLogs/webhookLogsProjection.js';

/** Every read model the dashboard and API query. */
export const allProjections: Projection[] = [companiesProjection, pipelinesProjection, creditsProjection, apiTokensProjection, integrationsProjection, webhookLogsProjection, conversationRefsProjection,
  conversationsProjection,
  conversationReadsProjection,
  agentsProjection,
  knowledgeDocumentsProjection,
];
