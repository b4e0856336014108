import { chargeUsage } from '../../commands/credits/chargeUsage.js';
import { loadCreditBalance } from '../../commands/credits/streamReads.js';
import type { CommandDeps } from '../../commands/deps.js';
import { deterministicId } from '../../commands/hashing.js';
import type { CheckResult } from '../../domain/agents/testCases/checks.js';
import { billedUsage, estimateUsage, type Pricing } from '../../domain/credits/decider.js';
import { isLlmError, promptChars, type LlmMessage } from '../../ports/llm.js';
import type { CompanyLlm } from '../replies/replyDecisions.js';

export interface JudgeDeps extends CommandDeps {
  loadLlm(companyId: string): Promise<CompanyLlm>;
  pricing: Pricing;
}

export type JudgeInput = { companyId: string; runId: string; caseId: string; criterion: string; turns: string[]; answer: { text: string; handoff: boolean } };

const JUDGE_INSTRUCTIONS =
  'You check a customer-support answer against one criterion. Read the customer messages, the answer and the criterion. ' +
  'Reply with one JSON object and nothing else: {"verdict": "pass" or "fail", "reason": "one short sentence"}.';

export const NOT_JUDGED_BUILTIN = 'The builtin provider cannot judge a criterion: configure an OpenAI-compatible model (LLM setup) to judge it';

/** The id a judgement is charged under: the same for every delivery of its run's job, so it is charged once. */
export const judgementId = (runId: string, caseId: string) => deterministicId(`test-judge:${runId}:${caseId}`);

/**
 * A case's judge criterion checked by the company's LLM, and charged like any answer (chargeUsage's guard
 * stream, `charge-<judgementId>`: a redelivered job charges nothing again). The builtin provider, an empty
 * balance or a failing model give 'not_judged' with why: never a pass that was not judged.
 */
export async function judgeAnswer(deps: JudgeDeps, input: JudgeInput): Promise<CheckResult> {
  const notJudged = (reason: string): CheckResult => ({ check: 'judge', expected: input.criterion, passed: false, verdict: 'not_judged', reason });
  const llm = await deps.loadLlm(input.companyId);
  if (llm.kind === 'builtin') return notJudged(NOT_JUDGED_BUILTIN);
  if (!llm.model) return notJudged('No model is configured to judge with');
  if ((await loadCreditBalance(deps.eventStore, input.companyId)) <= 0) return notJudged('No credits left to pay for the judge');
  const messages: LlmMessage[] = [
    { role: 'system', content: JUDGE_INSTRUCTIONS },
    {
      role: 'user',
      content: `Customer messages:\n${input.turns.join('\n')}\n\nAnswer${input.answer.handoff ? ' (the agent handed the conversation to a person)' : ''}:\n${input.answer.text}\n\nCriterion:\n${input.criterion}`,
    },
  ];
  let response;
  try {
    response = await llm.provider.complete({ model: llm.model, messages, temperature: 0, maxTokens: 200 });
  } catch (err) {
    if (!isLlmError(err)) throw err;
    deps.logger.warn({ runId: input.runId, caseId: input.caseId, err }, 'test judge failed');
    return notJudged(`The language model failed (${err.kind})`);
  }
  const billed = billedUsage(llm.model, response.usage, estimateUsage(promptChars(messages), response.text.length), deps.pricing);
  await chargeUsage(deps, {
    companyId: input.companyId,
    conversationId: '',
    replyId: judgementId(input.runId, input.caseId),
    testRunId: input.runId,
    model: billed.model,
    inputTokens: billed.inputTokens,
    outputTokens: billed.outputTokens,
    usageSource: billed.usageSource,
  });
  const verdict = readVerdict(response.text);
  if (!verdict) return notJudged('The judge’s reply could not be read');
  return { check: 'judge', expected: input.criterion, passed: verdict.pass, verdict: verdict.pass ? 'passed' : 'failed', reason: verdict.reason };
}

/** The verdict object, strictly or inside other text; its reason as one plain line. Untrusted model output. */
export function readVerdict(text: string): { pass: boolean; reason: string } | null {
  const match = /\{[\s\S]*\}/.exec(text);
  if (!match) return null;
  try {
    const parsed = JSON.parse(match[0]) as { verdict?: unknown; reason?: unknown };
    const verdict = String(parsed.verdict ?? '').toLowerCase();
    if (verdict !== 'pass' && verdict !== 'fail') return null;
    // eslint-disable-next-line no-control-regex
    const reason = String(parsed.reason ?? '').replace(/[\u0000-\u001f\u007f]+/g, ' ').trim().slice(0, 500) || '(no reason given)';
    return { pass: verdict === 'pass', reason };
  } catch {
    return null;
  }
}
