import { z } from 'zod';
import { bearerSecurity as security, errorBody, errorResponses } from './schemas.js';

export const TEST_MESSAGE_MAX_LENGTH = 4000;

export const testMessageSchema = {
  tags: ['integrations'],
  summary: 'Send a test customer message through the integration’s webhook',
  description:
    'Signs the simple inbound body ({text, client_id, channel_id:"test", transport:"test"}) with the integration’s webhook secret and ' +
    'posts it to its own webhook URL in-process: verification, dedupe and the webhook log are the real ones. Every call is a new test ' +
    'customer (`test-<userId>-<random>`), so a new conversation: an earlier test handed off to a human never swallows the next one. 202 with the conversation id once the message is stored; the agent ' +
    'answers asynchronously (without an apiUrl the answer is delivered to the sandbox). 400 `not_supported` for a webchat ' +
    'integration; 409 `WEBHOOK_SECRET_NOT_CONFIGURED` or `INTEGRATION_INACTIVE` when the webhook would refuse it.',
  security,
  params: z.object({ id: z.string().max(20) }),
  body: z.strictObject({ text: z.string().trim().min(1, 'must not be empty').max(TEST_MESSAGE_MAX_LENGTH, `must be at most ${TEST_MESSAGE_MAX_LENGTH} characters`) }),
  response: { 202: z.object({ ok: z.literal(true), conversationId: z.uuid() }), 409: errorBody, ...errorResponses },
};
