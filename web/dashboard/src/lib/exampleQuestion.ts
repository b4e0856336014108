/**
 * The example a newcomer's first test message suggests, drawn from the company's own knowledge base: a question
 * the agent can answer. A fixed example ("What can you tell me about your service?") is one the knowledge base
 * usually cannot answer, so the first test ended in a handoff. Built from the document's title with only words
 * retrieval ignores around it ("What about …?"), so the question's one meaningful term is the title's.
 */
export function exampleQuestion(title: string | null | undefined): string | null {
  const words = (title ?? '').replace(/\s+/g, ' ').trim();
  if (words === '') return null;
  if (words.endsWith('?')) return words;
  const subject = words.replace(/[.!:;,]+$/, '');
  // "Shipping" → "shipping", but an acronym ("FAQ", "EU delivery") stays as written.
  const keepCase = /^\p{Lu}\S*\p{Lu}/u.test(subject);
  const lowered = keepCase ? subject : subject.charAt(0).toLowerCase() + subject.slice(1);
  return `What about ${lowered}?`;
}
