import { DomainError } from '../errors.js';
import { AGENT_LIMITS, RELEASE_FAILED_CASES_SHOWN, type ReleaseChecksRecord } from './events.js';
import type { TestCaseBody } from './testCases/events.js';

/**
 * The release gate: a newer version, or an older one that never went live, goes live only when a release check
 * of that very version (its test run, with a replay over the agent's recent conversations) found no required
 * case failing, against the cases the agent has now; an owner may override it with a reason. A rollback is not
 * gated: it goes back to a version customers were already answered with, and must stay one call away when a
 * release went wrong.
 */
export const RELEASE_CHECK_LIMITS = {
  /** The agent's most recent conversations a check replays, when the caller names no number. */
  defaultConversations: 20,
  /** Bounded by what one replay holds (REPLAY_LIMITS.conversations). */
  maxConversations: 20,
} as const;

type FailedCase = ReleaseChecksRecord['failedCases'][number];

type Case = TestCaseBody & { caseId: string };

/** A release check as the gate sees it: the version it answered with, the cases as they were, and the outcome. */
export type ReleaseCheckOutcome = {
  releaseCheckId: string;
  version: number;
  /** The suite is answered and the replay settled. */
  finished: boolean;
  cases: Case[];
  /** caseId → passed, for the cases answered so far. */
  passed: Record<string, boolean>;
};

export type ReleaseGateInput = {
  /** The cases the agent has now. */
  cases: Case[];
  check: ReleaseCheckOutcome | null;
  /** An owner's written reason to publish whatever the checks say. */
  overrideReason: string | null;
};

const sameCase = (a: Case, b: Case) => JSON.stringify([a.name, a.turns, a.expect, a.required]) === JSON.stringify([b.name, b.turns, b.expect, b.required]);

/** The required cases of the check that failed, by name. */
export function failingRequiredCases(check: Pick<ReleaseCheckOutcome, 'cases' | 'passed'>): FailedCase[] {
  return check.cases.filter((c) => c.required && check.passed[c.caseId] === false).map(({ caseId, name }) => ({ caseId, name }));
}

/**
 * Whether `version` may be published, and what its publish records. Refusals, in the order a user meets them:
 * RELEASE_CHECKS_REQUIRED (required cases and no check, a check of another version, or cases changed since the
 * check), RELEASE_CHECKS_PENDING (still running), RELEASE_CHECKS_FAILED (a required case fails; details name
 * them). An override needs a reason and skips all three. null: nothing to gate (no required case, no check).
 */
export function decideReleaseGate(version: number, input: ReleaseGateInput): ReleaseChecksRecord | null {
  const { check, cases } = input;
  const reason = input.overrideReason?.trim() || null;
  if (input.overrideReason !== null && !reason) throw new DomainError('VALIDATION_ERROR', 'reason: an override says why');
  if (reason && reason.length > AGENT_LIMITS.reason) throw new DomainError('VALIDATION_ERROR', `reason: at most ${AGENT_LIMITS.reason} characters`);
  // A case removed since the check, or no longer required, stops nothing.
  const required = new Set(cases.filter((c) => c.required).map((c) => c.caseId));
  const failed = check && check.version === version ? failingRequiredCases(check).filter((c) => required.has(c.caseId)).slice(0, RELEASE_FAILED_CASES_SHOWN) : [];
  const record = { releaseCheckId: check?.releaseCheckId ?? null, failedCases: failed };
  if (reason) return { ...record, overridden: true, overrideReason: reason };
  if (!check) {
    if (!cases.some((c) => c.required)) return null;
    throw new DomainError('RELEASE_CHECKS_REQUIRED', `Version ${version} has not been checked: start a release check of it, then publish with its releaseCheckId`);
  }
  if (check.version !== version) throw new DomainError('RELEASE_CHECKS_REQUIRED', `Release check ${check.releaseCheckId} checked version ${check.version}, not ${version}`);
  const checked = new Map(check.cases.map((c) => [c.caseId, c]));
  const changed = cases.filter((c) => c.required && !(checked.has(c.caseId) && sameCase(checked.get(c.caseId)!, c)));
  if (changed.length > 0) {
    throw new DomainError('RELEASE_CHECKS_REQUIRED', `The test cases changed since release check ${check.releaseCheckId} (${changed.map((c) => JSON.stringify(c.name)).join(', ')}): run it again`);
  }
  if (!check.finished) throw new DomainError('RELEASE_CHECKS_PENDING', `Release check ${check.releaseCheckId} is still running`);
  if (failed.length > 0) {
    throw new DomainError('RELEASE_CHECKS_FAILED', `Required test cases fail: ${failed.map((c) => JSON.stringify(c.name)).join(', ')}`, {
      releaseCheckId: check.releaseCheckId,
      failedCases: failed,
    });
  }
  return { ...record, overridden: false, overrideReason: null };
}
