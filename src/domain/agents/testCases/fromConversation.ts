import type { RecordedAnswer } from '../../replays/events.js';
import { TEST_CASE_LIMITS, type TestCaseBody, type TestExpectations } from './events.js';

/** A customer turn of a real conversation and what answered it (commands/replays/replayPlan.ts reads them). */
export type PastTurn = { customerText: string; recorded: RecordedAnswer };

/** The reference shown in a judge criterion, at most this many characters of it. */
const JUDGE_QUOTE_CHARS = 400;

const isReference = (r: RecordedAnswer) => r.kind === 'operator' || (r.kind === 'agent' && !r.handoff);

/**
 * A test case proposed from a conversation's turns (oldest first): the customer turns up to the last one a
 * person answered or the AI answered without handing off (its answer is the reference), at most
 * TEST_CASE_LIMITS.turns of them. Expectations follow the reference: an accepted AI answer must be given
 * again without a handoff, citing its first source; a person's answer becomes a judge criterion quoting it.
 * No reference (every turn handed off or unanswered): the last turns, expecting a handoff.
 */
export function proposeCase(conversationId: string, turns: PastTurn[]): Pick<TestCaseBody, 'turns' | 'expect' | 'reference'> {
  const last = turns.findLastIndex((t) => isReference(t.recorded));
  const upTo = last >= 0 ? last : turns.length - 1;
  const script = turns
    .slice(0, upTo + 1)
    .slice(-TEST_CASE_LIMITS.turns)
    .map((t) => t.customerText.slice(0, TEST_CASE_LIMITS.turnChars))
    .filter((t) => t.trim().length > 0);
  const recorded = last >= 0 ? turns[last]!.recorded : null;
  if (!recorded || (recorded.kind !== 'agent' && recorded.kind !== 'operator')) return { turns: script, expect: { handoff: true } };
  const reference = { kind: recorded.kind, text: recorded.text.slice(0, TEST_CASE_LIMITS.referenceChars), conversationId };
  if (recorded.kind === 'operator') {
    const quote = recorded.text.length > JUDGE_QUOTE_CHARS ? `${recorded.text.slice(0, JUDGE_QUOTE_CHARS)}…` : recorded.text;
    return { turns: script, expect: { judge: `Gives the customer the same information as this answer from our team: "${quote}"` }, reference };
  }
  const source = recorded.provenance?.sources[0]?.documentId;
  const expect: TestExpectations = { handoff: false, ...(source && isUuid(source) ? { citesDocumentId: source } : {}) };
  return { turns: script, expect, reference };
}

const isUuid = (s: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s);
