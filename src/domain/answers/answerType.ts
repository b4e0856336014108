/**
 * Answer-type matching, as question-answering systems have long done it: the question's wh-phrase says what
 * kind of thing the answer is ("how much" / "what fee" → an amount of money or "free"; "how long" / "when" → a
 * duration or a time; "how many" → a number), and a passage that cannot hold that kind of thing does not answer
 * the question, however many of its words it shares. "From what amount is delivery free?" is not answered by a
 * payment passage saying "cash on delivery" and "interest-free instalments" (no amount in it), but by "free from
 * 60 EUR".
 *
 * Only the types a short regular expression recognises reliably in English support text are used; a question
 * of no recognised type (yes/no questions, "where", "which") expects nothing, and every passage passes.
 */

export type AnswerType = 'amount' | 'time' | 'count';

const NUMBER_WORDS = 'one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|a|an|a few|several|half an?';
const TIME_UNITS = '(?:second|minute|min|hour|hr|day|working day|business day|week|month|year)s?';

/** What the question asks for, from its wh-phrase; null: no recognised type. */
export function expectedAnswerType(question: string): AnswerType | null {
  const q = ` ${question.toLowerCase().replace(/[’']/g, '')} `;
  if (/\bhow much\b(?!\s+(?:time|notice|data|storage|space)\b)|\bwhat (?:amount|fees?|costs?|prices?)\b|\bhow expensive\b|\bfrom what amount\b/.test(q)) return 'amount';
  if (/\bhow (?:long|soon|fast|quickly)\b|(?:^\s*|[.!?,]\s*|\b(?:and|so|but)\s+)when\b|\bwhat time\b|\bby when\b|\bhow much (?:time|notice)\b/.test(q)) return 'time';
  if (/\bhow many\b/.test(q)) return 'count';
  return null;
}

const AMOUNT = new RegExp(
  [
    String.raw`\d[\d.,]*\s?(?:eur|euros?|usd|dollars?|gbp|pounds?|pence|cents?|%|percent)\b`,
    String.raw`[€$£]\s?\d`,
    String.raw`(?<![\w-])free(?![\w-])`,
    String.raw`\bno (?:extra |additional )?(?:fees?|charges?|costs?|interest)\b`,
    String.raw`\bat no (?:extra )?cost\b`,
    String.raw`\bpro rata\b`,
  ].join('|'),
);
const TIME = new RegExp(
  [
    String.raw`\b(?:\d+(?:[.,]\d+)?|${NUMBER_WORDS})(?:\s?(?:to|-|–|or)\s?\d+)?[\s-]?${TIME_UNITS}\b`,
    String.raw`\b\d{1,2}[:.]\d{2}\b`,
    String.raw`\b\d{1,2}\s?(?:am|pm)\b`,
    String.raw`\bfrom \d{1,2}(?:[:.]\d{2})?\s?(?:to|till|until|-|–)\s?\d{1,2}\b|\b24/7\b|\bweekdays?\b|\bweekends?\b|\bholidays?\b`,
    String.raw`\b(?:same|next|following) (?:working |business )?day\b`,
    String.raw`\b(?:straight|right) away\b|\bat once\b|\bimmediately\b|\binstantly\b|\bany ?time\b|\baround the clock\b|\bday or night\b`,
    String.raw`\b(?:daily|weekly|monthly|yearly|annually)\b|\bevery (?:day|week|month|year)\b|\beach (?:day|week|month|year)\b`,
    String.raw`\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|august|september|october|november|december)s?\b`,
  ].join('|'),
);
const COUNT = new RegExp(String.raw`\d|\b(?:${NUMBER_WORDS}|unlimited|no limit|any number)\b`);

/**
 * Words of the question that name the type rather than the topic ("what amount", "how long", "how fast"): a
 * passage holding an answer of that type answers them ("free from 60 EUR" answers "what amount") though it
 * does not repeat them. Words: the index stems them with its own stemmer.
 */
export const ANSWER_TYPE_CUES: Readonly<Record<AnswerType, readonly string[]>> = {
  amount: ['amount', 'much', 'cost', 'costs', 'price', 'fee', 'fees', 'expensive'],
  time: ['long', 'soon', 'fast', 'quickly', 'time'],
  count: ['many'],
};

/** Whether the passage's text can hold an answer of the type. */
export function holdsAnswerType(type: AnswerType, passage: string): boolean {
  const text = passage.toLowerCase();
  if (type === 'amount') return AMOUNT.test(text);
  if (type === 'time') return TIME.test(text);
  return COUNT.test(text);
}
