import { z } from 'zod';
import { aiBacklogSchema, AI_REPLIES_DELAYED_AFTER_MS } from '../../projections/conversations/aiBacklog.js';
import { bearerSecurity as security, errorResponses } from './schemas.js';

export const aiBacklogRouteSchema = {
  tags: ['conversations'],
  summary: "The company's conversations waiting for an AI answer",
  description:
    'How many of the company’s conversations wait for an AI answer (an active AI session, a customer message not answered yet, not handed to people or paused), ' +
    `since when the oldest waits, and \`delayed\` once it has waited more than ${AI_REPLIES_DELAYED_AFTER_MS / 1000} s. ` +
    'Read from the conversations read model: a few seconds behind the latest messages.',
  security,
  response: { 200: z.object({ aiBacklog: aiBacklogSchema }), ...errorResponses },
};
