import { createContext, Script } from 'node:vm';
import type { RegexTest } from '../domain/agents/testCases/checks.js';

/**
 * How long one regular expression of a test case may run on one answer. Checks run on the replay worker's
 * thread, so a catastrophic expression would stall every run and replay of the process: past this budget it is
 * stopped and its check fails, saying why. An ordinary expression takes well under a millisecond on the longest
 * answer (65,536 characters); a case has at most 20 expressions, so a case blocks the thread for at most a second.
 */
export const REGEX_BUDGET_MS = 50;

// A context of its own: V8 interrupts a running expression only for a script run with a timeout.
const regexTest = new Script('new RegExp(source, "iu").test(text)');
const sandbox = createContext({ source: '', text: '' });

export const boundedRegexTest: RegexTest = (source, text) => {
  Object.assign(sandbox, { source, text });
  try {
    return regexTest.runInContext(sandbox, { timeout: REGEX_BUDGET_MS }) === true;
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return 'too_slow';
    throw err;
  } finally {
    Object.assign(sandbox, { source: '', text: '' });
  }
};
