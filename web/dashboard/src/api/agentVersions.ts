// Agent versions: every saved change is a numbered version; one is published (answers customers), one is the draft.
import type { Agent, AnswerThreshold } from './types.js';
import { idempotencyKeyFor, query, request, type RequestOptions } from './client.js';

export interface AgentConfig {
  systemPrompt: string;
  model: string | null;
  temperature: number;
  useKnowledgeBase: boolean;
  handoffMessage: string;
  answerThreshold: AnswerThreshold;
}

export interface AgentVersion {
  version: number;
  basedOn: number | null;
  changed: string[];
  config: AgentConfig;
  createdAt: string;
  createdBy: string | null;
  published: boolean;
  draft: boolean;
}

export interface VersionPage {
  versions: AgentVersion[];
  nextCursor: string | null;
  publishedVersion: number;
  draftVersion: number;
  latestVersion: number;
}

export interface VersionDiff {
  from: number;
  to: number;
  fields: { field: keyof AgentConfig; from: unknown; to: unknown; changed: boolean }[];
  systemPrompt: { op: 'equal' | 'added' | 'removed'; line: string }[];
}

export interface Publication {
  version: number;
  previousVersion: number;
  rollback: boolean;
  reason: string | null;
  /** The release gate's record, on a gated publish. */
  checks?: { releaseCheckId: string | null; failedCases: { caseId: string; name: string }[]; overridden: boolean; overrideReason: string | null };
  by: string | null;
  at: string;
}

export interface Released {
  agent: Agent;
  publishedVersion: number;
  draftVersion: number;
  latestVersion: number;
}

const base = (agentId: string) => `/api/agents/${encodeURIComponent(agentId)}`;

export const listVersions = (agentId: string, page: { cursor?: string | null; limit?: number } = {}, o?: RequestOptions) =>
  request<VersionPage>('GET', `${base(agentId)}/versions${query({ limit: page.limit ?? 50, cursor: page.cursor })}`, undefined, o);
export const saveDraft = async (agentId: string, changes: Partial<AgentConfig>) =>
  (await request<{ version: AgentVersion }>('POST', `${base(agentId)}/versions`, changes)).version;
export const diffVersions = async (agentId: string, from: number, to: number, o?: RequestOptions) =>
  (await request<{ diff: VersionDiff }>('GET', `${base(agentId)}/diff${query({ from, to })}`, undefined, o)).diff;
export const publishVersion = (agentId: string, version: number) => request<Released>('POST', `${base(agentId)}/versions/${version}/publish`, {});
export const rollbackTo = (agentId: string, version: number, reason: string) => request<Released>('POST', `${base(agentId)}/rollback`, { version, reason });
export const listPublications = async (agentId: string, o?: RequestOptions) =>
  (await request<{ publications: Publication[] }>('GET', `${base(agentId)}/publications?limit=20`, undefined, o)).publications;

// Test cases and runs: checked on the builtin provider, never a conversation.
export interface TextMatcher {
  kind: 'text' | 'regex';
  value: string;
}
export interface TestExpectations {
  contains?: TextMatcher[];
  notContains?: TextMatcher[];
  handoff?: boolean;
  citesDocumentId?: string;
  maxChars?: number;
  /** A criterion in plain words, judged by the company's model (not on the builtin provider). */
  judge?: string;
}
export interface TestCase {
  id: string;
  name: string;
  turns: string[];
  expect: TestExpectations;
  required: boolean;
  createdAt: string;
  updatedAt: string;
}
export type TestCaseInput = Pick<TestCase, 'name' | 'turns' | 'expect' | 'required'>;
export interface TestRun {
  id: string;
  version: number;
  /** stopped: a paid run's company ran out of credits. */
  status: 'running' | 'finished' | 'stopped';
  stopped: { reason: 'credits_exhausted' | 'job_failed'; message: string } | null;
  provider: 'builtin' | 'openai';
  model: string;
  passed: number;
  failed: number;
  requiredFailed: number;
  cases: {
    caseId: string;
    name: string;
    required: boolean;
    status: 'pending' | 'passed' | 'failed' | 'not_judged';
    answer: { text: string; handoff: boolean; documentIds: string[] } | null;
    results: { check: string; expected: string; passed: boolean; verdict?: 'passed' | 'failed' | 'not_judged'; reason?: string }[];
  }[];
}

export const listTestCases = async (agentId: string, o?: RequestOptions) =>
  (await request<{ testCases: TestCase[] }>('GET', `${base(agentId)}/test-cases?limit=200`, undefined, o)).testCases;
export const createTestCase = async (agentId: string, input: TestCaseInput) => (await request<{ testCase: TestCase }>('POST', `${base(agentId)}/test-cases`, input)).testCase;
export const caseFromConversation = async (agentId: string, conversationId: string) =>
  (await request<{ testCase: TestCase }>('POST', `${base(agentId)}/test-cases/from-conversation`, { conversationId })).testCase;
export const deleteTestCase = (agentId: string, caseId: string) => request<void>('DELETE', `${base(agentId)}/test-cases/${encodeURIComponent(caseId)}`);
export interface TestRunEstimate {
  version: number;
  cases: number;
  messages: number;
  costMicros: number;
  provider: 'builtin' | 'openai';
  model: string;
}
export const estimateTestRun = async (agentId: string, version: number) =>
  (await request<{ estimate: TestRunEstimate }>('POST', `${base(agentId)}/test-runs/estimate`, { version })).estimate;
/** Starts the run `confirmed` priced (its cost; sent again with the same estimate, the key finds the first run). */
export const startTestRun = async (agentId: string, version: number, confirmed: { costMicros: number }) =>
  (await request<{ run: TestRun }>('POST', `${base(agentId)}/test-runs`, { version, confirmedCostMicros: confirmed.costMicros }, { idempotencyKey: idempotencyKeyFor(confirmed) })).run;
export const getTestRun = async (agentId: string, runId: string) => (await request<{ run: TestRun }>('GET', `${base(agentId)}/test-runs/${encodeURIComponent(runId)}`)).run;

// Release checks: a version's test cases and a replay over the agent's recent conversations, before it is published.
export interface ReleaseCheck {
  id: string;
  version: number;
  status: 'running' | 'finished';
  gate: { passed: boolean | null; failedCases: { caseId: string; name: string }[] };
  suite: TestRun;
  replay: { id: string; status: 'running' | 'completed' | 'cancelled' | 'failed' } | null;
  conversations: number;
  createdAt: string;
}
export interface SideAnswer {
  kind: 'agent' | 'operator' | 'unanswered' | 'none' | 'failed';
  text: string | null;
  handoff: boolean;
  documentIds: string[];
  chars: number;
  costMicros: number | null;
}
export interface ReleaseTurn {
  conversationId: string;
  turn: number;
  customerText: string;
  current: SideAnswer;
  draft: SideAnswer;
  changes: { handoff: 'same' | 'now_hands_off' | 'no_longer_hands_off'; sourcesAdded: string[]; sourcesRemoved: string[]; lengthDelta: number; costDeltaMicros: number | null };
}
/** What a check would answer and cost: the replay's messages and the suite's, `costMicros` for both. */
export interface ReleaseEstimate extends Omit<TestRunEstimate, 'cases'> {
  suite: { cases: number; messages: number; costMicros: number };
}

export const estimateReleaseCheck = async (agentId: string, version: number) =>
  (await request<{ estimate: ReleaseEstimate }>('POST', `${base(agentId)}/release-checks/estimate`, { version })).estimate;
export const startReleaseCheck = async (agentId: string, version: number, confirmed: { costMicros: number }) =>
  (await request<{ check: ReleaseCheck }>('POST', `${base(agentId)}/release-checks`, { version, confirmedCostMicros: confirmed.costMicros }, { idempotencyKey: idempotencyKeyFor(confirmed) })).check;
export const getReleaseCheck = (agentId: string, checkId: string) =>
  request<{ check: ReleaseCheck; turns: ReleaseTurn[]; nextCursor: string | null }>('GET', `${base(agentId)}/release-checks/${encodeURIComponent(checkId)}?limit=200`);
export const publishChecked = (agentId: string, version: number, releaseCheckId: string, override?: { reason: string }) =>
  request<Released>('POST', `${base(agentId)}/versions/${version}/publish`, { releaseCheckId, ...(override ? { override: true, reason: override.reason } : {}) });
