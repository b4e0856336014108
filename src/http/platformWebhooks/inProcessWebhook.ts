import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';

/**
 * A webhook the service posts to itself (the dashboard's "Send a test message") goes through the real webhook
 * route by `inject`, so signature check, dedupe and logging are the real ones. It never crosses a network, so
 * the production HTTPS rule (which protects the body and signature in transit) does not apply to it: such a
 * request carries this process's random token, which no outside caller can know.
 */
export const IN_PROCESS_HEADER = 'x-mas-in-process';
const token = randomBytes(32).toString('hex');

export const inProcessHeaders = (): Record<string, string> => ({ [IN_PROCESS_HEADER]: token });

export function isInProcessRequest(request: FastifyRequest): boolean {
  const given = request.headers[IN_PROCESS_HEADER];
  if (typeof given !== 'string' || given.length !== token.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(token));
}

/**
 * A fresh test customer per click: a first question the agent hands off pauses that conversation, and a
 * newcomer's next test message must not land in it unanswered. The user id stays in it, so the log shows whose
 * test it was.
 */
export const newTestClientId = (userId: string) => `test-${userId}-${randomBytes(4).toString('hex')}`;

/** The simple inbound body of the spec (text, client_id, channel_id, transport), as a platform would post it. */
export function testMessageBody(text: string, clientId: string): string {
  return JSON.stringify({
    text,
    client_id: clientId,
    channel_id: 'test',
    transport: 'test',
    // A fresh id per click: sending "hello" twice is two messages, not a redelivery.
    message_id: `test-${randomUUID()}`,
  });
}
