import { z } from 'zod';

/**
 * The one-question satisfaction survey sent after a conversation closes (CSAT): a rating from 1 to 5 and an
 * optional comment. On web chat the widget asks inline; on the messaging platform the question is a message
 * and the customer's short reply is read as the answer.
 */
export const csatRating = z.number().int().min(1).max(5);
export const CSAT_COMMENT_MAX_LENGTH = 1000;
export const csatVia = z.enum(['webchat', 'platform']);
export type CsatVia = z.infer<typeof csatVia>;

/** What a platform customer is asked (the widget shows its own buttons and the same question). */
export const CSAT_QUESTION = 'How would you rate the help you got? Reply with a number from 1 (poor) to 5 (great), and a comment if you like.';

/** The widget's question (it shows five buttons and a comment box under it). */
export const CSAT_WEBCHAT_QUESTION = 'How would you rate the help you got?';

const WORDS: Record<string, number> = { one: 1, two: 2, three: 3, four: 4, five: 5 };

/**
 * A platform reply read as an answer, or null when it is not one (then it is an ordinary message):
 *   "5", "4 thanks", "5 - great", "4/5 ok", "3 stars", "five", "Four, slow but fine" → the rating and the rest as comment;
 *   "10", "0", "4.5", "45", "great 5", "thanks", "" → null.
 * Only a rating that leads the reply counts: a number inside a sentence ("I ordered 5 shirts") is not a rating.
 */
export function parseCsatReply(text: string): { rating: number; comment: string | null } | null {
  const t = text.trim();
  if (t.length === 0 || t.length > CSAT_COMMENT_MAX_LENGTH + 20) return null;
  const m = /^(?:([1-5])|(one|two|three|four|five))(?![\d.,]\d)(?:\s*\/\s*5)?(?:\s*(?:stars?|★|⭐))?(?=$|[\s,.;:!\-–—)])(.*)$/isu.exec(t);
  if (!m) return null;
  const rating = m[1] ? Number(m[1]) : WORDS[m[2]!.toLowerCase()]!;
  const comment = m[3]!.replace(/^[\s,.;:!\-–—)]+/u, '').trim();
  return { rating, comment: comment === '' ? null : comment.slice(0, CSAT_COMMENT_MAX_LENGTH) };
}
