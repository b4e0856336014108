import { z } from 'zod';
import { NO_CONFIDENT_ANSWER_REASON } from '../../domain/answers/provenance.js';
import type { LlmPassage, LlmRequest, LlmResponse } from '../../ports/llm.js';
import { cleanHandoffReason } from './handoffReason.js';

/**
 * Grounded answers from an OpenAI-compatible model: given knowledge-base passages, the model answers only from
 * them and says which it used, as a structured reply (GROUNDED_REPLY_SCHEMA, sent as a JSON-schema response
 * format). A model can write a confident sentence from nothing; it cannot as easily cite a passage that does
 * not say it, and a reply citing nothing is exactly the one to hand to a person.
 *
 * What the reply becomes (`decideGrounded`):
 * - `handoff: true` or an empty answer: handed off, cause `no_confident_answer`, the model's reason (or
 *   "no confident answer").
 * - an answer citing at least one passage it was given: answered; the cited passages are its sources. A
 *   citation of a number it was not given is ignored.
 * - an answer citing none: handed off the same way, unless the agent allows general answers.
 * - a reply that cannot be read as such an object (not JSON, another shape): treated as an answer citing
 *   nothing, so handed off; with general answers, plain text (not JSON-looking) is the answer as written.
 *   Never an error: a model that ignores the format still leaves the customer with an answer or a person.
 */

/** The reply the model is asked for. Every field is required (OpenAI's strict structured outputs insist). */
export const groundedReplySchema = z.object({
  citations: z.array(z.number().int()).describe('The numbers of the passages the answer is taken from, e.g. [1, 3]. Empty when handing off.'),
  answer: z.string().describe('The reply to the customer, from the passages only. Empty when handing off.'),
  handoff: z.boolean().describe('true when the passages do not answer the question: a colleague will take over.'),
  handoffReason: z.string().nullable().describe('When handing off: why, in one short sentence. Otherwise null.'),
});
export type GroundedReply = z.infer<typeof groundedReplySchema>;

export const GROUNDED_REPLY_NAME = 'grounded_reply';

/** A request is answered grounded when it offers passages to cite; without any there is nothing to ground on. */
export const isGrounded = (request: Pick<LlmRequest, 'passages'>) => (request.passages?.length ?? 0) > 0;

/** The instructions and the numbered passages, as one system message. */
export function groundedContext(passages: LlmPassage[], options: { generalAnswers: boolean; handoffTool: string | null; handoffMessage?: string | undefined }): string {
  const { generalAnswers, handoffTool } = options;
  const handoffMessage = options.handoffMessage?.trim();
  const parts = [
    'Knowledge base passages, numbered:\n\n' + passages.map((p, i) => `[${i + 1}] ${p.title}\n${p.text.trim()}`).join('\n\n'),
    'Answer only from these passages and the conversation; do not add facts they do not state. Reply with one JSON object and nothing else: ' +
      '{"citations": [the numbers of the passages your answer uses], "answer": "your reply to the customer", "handoff": false, "handoffReason": null}.',
    'If the passages do not answer the question, do not guess: reply {"citations": [], "answer": "", "handoff": true, "handoffReason": "why, in one short sentence"}.',
    generalAnswers
      ? 'A reply that needs no passage (a greeting, a thank-you, a general question not about this company) may cite none.'
      : 'Every answer must cite at least one passage; an answer citing none is not sent.',
  ];
  if (handoffMessage) parts.push(`When you hand off, the customer is told: ${handoffMessage}`);
  if (handoffTool) parts.push(`If the customer needs a person, call ${handoffTool} with a short reason instead.`);
  return parts.join('\n\n');
}

/** Reads the model's text as a grounded reply: strict JSON first, then tolerantly (code fences, prose around it, ids as strings). */
export function parseGroundedReply(text: string): GroundedReply | null {
  const strict = tryJson(text.trim());
  const parsed = groundedReplySchema.safeParse(strict);
  if (parsed.success) return parsed.data;
  return tolerant(strict) ?? tolerant(tryJson(outermostObject(text)));
}

const lenientSchema = z.object({
  citations: z.array(z.unknown()).optional(),
  answer: z.string().nullable().optional(),
  handoff: z.boolean().nullable().optional(),
  handoffReason: z.string().nullable().optional(),
});

function tolerant(value: unknown): GroundedReply | null {
  const parsed = lenientSchema.safeParse(value);
  if (!parsed.success) return null;
  const { citations = [], answer, handoff, handoffReason } = parsed.data;
  if (typeof answer !== 'string' && handoff !== true) return null;
  const numbers = citations.map((c) => (typeof c === 'number' ? c : typeof c === 'string' ? Number(c.replace(/[[\]\s]/g, '')) : NaN)).filter((n) => Number.isInteger(n));
  return { citations: numbers, answer: answer ?? '', handoff: handoff === true, handoffReason: handoffReason ?? null };
}

function tryJson(text: string | null): unknown {
  if (text === null || text.length === 0) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The text from the first "{" to the last "}" (a reply wrapped in a code fence or a sentence). */
function outermostObject(text: string): string | null {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  return start >= 0 && end > start ? text.slice(start, end + 1) : null;
}

export type GroundedDecision = Pick<LlmResponse, 'text' | 'handoff' | 'handoffReason' | 'handoffCause' | 'usedPassages'>;

/** What the model's reply becomes (see the module comment). `text` is the content the model sent. */
export function decideGrounded(text: string, request: Pick<LlmRequest, 'passages' | 'handoffMessage' | 'generalAnswers'>, fallbackHandoff: string): GroundedDecision {
  const offered = request.passages?.length ?? 0;
  const handOff = (reason?: string): GroundedDecision => ({
    text: request.handoffMessage?.trim() || fallbackHandoff,
    handoff: true,
    handoffReason: reason ?? NO_CONFIDENT_ANSWER_REASON,
    handoffCause: 'no_confident_answer',
    usedPassages: [],
  });
  const reply = parseGroundedReply(text);
  if (reply === null) {
    const plain = text.trim();
    return request.generalAnswers === true && plain.length > 0 && !/^[{[`]/.test(plain) ? { text: plain, usedPassages: [] } : handOff();
  }
  const answer = reply.answer.trim();
  if (reply.handoff || answer.length === 0) return handOff(cleanHandoffReason(reply.handoffReason));
  const used = [...new Set(reply.citations)].filter((n) => n >= 1 && n <= offered).map((n) => n - 1);
  if (used.length === 0 && request.generalAnswers !== true) return handOff();
  return { text: answer, usedPassages: used };
}
