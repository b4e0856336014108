import { signWebhookBody } from '../../src/http/platformWebhooks/webhookSignature.js';

/** ~1 KB in all with the other fields: a long-ish customer message. */
export const FILLER =
  'Hello, I ordered a pair of walking boots last week (order 4471-2209) and the tracking page has not moved ' +
  'since Tuesday. Could you tell me whether the parcel has left your warehouse, which carrier has it and when ' +
  'it should arrive? I am travelling on the 14th, so if it cannot arrive before then I would rather collect ' +
  'it from a pick-up point near the station, or have it held until I am back. Also, the confirmation e-mail ' +
  'listed size 42 but I chose 43 on the website; please check which size is actually in the box and, if it ' +
  'is the wrong one, whether I can exchange it without paying for the return. Many thanks for your help, and ' +
  'sorry for the long message. Kind regards.';

/**
 * A native `inbox`/`from_client` webhook body of the messaging platform, ~1 KB, with its own message_id
 * (distinct ids: every POST is a new message, never a redelivery). `ref` is put at the start of the text so
 * the reply pipeline's LLM request and reply can be matched to it.
 */
export function inboundBody(messageId: string, clientId: string, ref = messageId): Buffer {
  return Buffer.from(
    JSON.stringify({
      hook_type: 'inbox',
      type: 'from_client',
      message_id: messageId,
      client_id: clientId,
      channel_id: 12,
      transport: 'telegram',
      client: { id: clientId, name: 'Bench Customer' },
      event_time: new Date().toISOString(),
      text: `[ref=${ref}] ${FILLER}`,
    }),
  );
}

export function signedHeaders(body: Buffer, secret: string): Record<string, string> {
  return { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(body, secret) };
}

/**
 * A knowledge-base document that answers FILLER: with it, the builtin LLM (no key) replies with this passage
 * instead of handing the conversation to a human, so every message of a conversation keeps being answered.
 */
export const ANSWER_DOCUMENT = {
  title: 'Orders, tracking, delivery, pick-up points and size exchanges',
  // The question itself is in the passage, so it covers (nearly) all of the message's terms.
  content: `# Late parcels and size exchanges\n\nA customer asked: ${FILLER}\n\nAnswer: parcels leave the warehouse within two days; pick-up points and exchanges are free.`,
};

/** A knowledge-base document of `bytes` bytes of ASCII text in paragraphs (a large upload). */
export function bigDocumentContent(bytes: number): string {
  const paragraph = `${FILLER}\n\n`;
  return paragraph.repeat(Math.ceil(bytes / paragraph.length)).slice(0, bytes);
}
