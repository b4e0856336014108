// Agent versions: every saved change is a numbered version; one is published (answers customers), one is the draft.
import { idempotencyKeyFor, query, request, type RequestOptions } from './client.js';
import type {
  AgentVersion,
  CaseFromConversation,
  DraftChanges,
  DraftSaved,
  PublicationPage,
  PublishBody,
  Released,
  ReleaseCheckStart,
  ReleaseCheckStarted,
  ReleaseEstimate,
  ReleaseEstimateBody,
  ReleaseReport,
  RollbackBody,
  TestCase,
  TestCaseInput,
  TestCasePage,
  TestRun,
  TestRunEstimate,
  TestRunEstimateBody,
  TestRunStart,
  TestRunStarted,
  VersionDiff,
  VersionPage,
  Reply,
  agentReleases,
  agentTests,
  agentVersions,
} from './serverTypes.js';

export type { AgentVersion, Released, ReleaseEstimate, TestCase, TestCaseInput, TestRun, TestRunEstimate, VersionDiff, VersionPage };
export type AgentConfig = AgentVersion['config'];
export type Publication = PublicationPage['publications'][number];

const base = (agentId: string) => `/api/agents/${encodeURIComponent(agentId)}`;

export const listVersions = (agentId: string, page: { cursor?: string | null; limit?: number } = {}, o?: RequestOptions) =>
  request<VersionPage>('GET', `${base(agentId)}/versions${query({ limit: page.limit ?? 50, cursor: page.cursor })}`, undefined, o);
export const saveDraft = async (agentId: string, changes: DraftChanges) => (await request<DraftSaved>('POST', `${base(agentId)}/versions`, changes)).version;
export const diffVersions = async (agentId: string, from: number, to: number, o?: RequestOptions) =>
  (await request<Reply<typeof agentVersions.diffSchema>>('GET', `${base(agentId)}/diff${query({ from, to })}`, undefined, o)).diff;
export const publishVersion = (agentId: string, version: number) => request<Released>('POST', `${base(agentId)}/versions/${version}/publish`, {} satisfies PublishBody);
export const rollbackTo = (agentId: string, version: number, reason: string) =>
  request<Released>('POST', `${base(agentId)}/rollback`, { version, reason } satisfies RollbackBody);
export const listPublications = async (agentId: string, o?: RequestOptions) =>
  (await request<PublicationPage>('GET', `${base(agentId)}/publications?limit=20`, undefined, o)).publications;

// Test cases and runs: checked on the builtin provider, never a conversation.
export type TestExpectations = TestCase['expect'];
export type TextMatcher = NonNullable<TestExpectations['contains']>[number];

export const listTestCases = async (agentId: string, o?: RequestOptions) =>
  (await request<TestCasePage>('GET', `${base(agentId)}/test-cases?limit=200`, undefined, o)).testCases;
export const createTestCase = async (agentId: string, input: TestCaseInput) =>
  (await request<Reply<typeof agentTests.createTestCaseSchema, 201>>('POST', `${base(agentId)}/test-cases`, input)).testCase;
export const caseFromConversation = async (agentId: string, conversationId: string) =>
  (await request<Reply<typeof agentTests.caseFromConversationSchema, 201>>('POST', `${base(agentId)}/test-cases/from-conversation`, { conversationId } satisfies CaseFromConversation)).testCase;
export const deleteTestCase = (agentId: string, caseId: string) => request<void>('DELETE', `${base(agentId)}/test-cases/${encodeURIComponent(caseId)}`);
export const estimateTestRun = async (agentId: string, version: number) =>
  (await request<Reply<typeof agentTests.estimateTestRunSchema>>('POST', `${base(agentId)}/test-runs/estimate`, { version } satisfies TestRunEstimateBody)).estimate;
/** Starts the run `confirmed` priced (its cost; sent again with the same estimate, the key finds the first run). */
export const startTestRun = async (agentId: string, version: number, confirmed: { costMicros: number }) =>
  (await request<TestRunStarted>('POST', `${base(agentId)}/test-runs`, { version, confirmedCostMicros: confirmed.costMicros } satisfies TestRunStart, { idempotencyKey: idempotencyKeyFor(confirmed) })).run;
export const getTestRun = async (agentId: string, runId: string) => (await request<Reply<typeof agentTests.getTestRunSchema>>('GET', `${base(agentId)}/test-runs/${encodeURIComponent(runId)}`)).run;

// Release checks: a version's test cases and a replay over the agent's recent conversations, before it is published.
export type ReleaseCheck = ReleaseReport['check'];
export type ReleaseTurn = ReleaseReport['turns'][number];
export type SideAnswer = ReleaseTurn['current'];

export const estimateReleaseCheck = async (agentId: string, version: number) =>
  (await request<Reply<typeof agentReleases.estimateReleaseCheckSchema>>('POST', `${base(agentId)}/release-checks/estimate`, { version } satisfies ReleaseEstimateBody)).estimate;
export const startReleaseCheck = async (agentId: string, version: number, confirmed: { costMicros: number }) =>
  (await request<ReleaseCheckStarted>('POST', `${base(agentId)}/release-checks`, { version, confirmedCostMicros: confirmed.costMicros } satisfies ReleaseCheckStart, { idempotencyKey: idempotencyKeyFor(confirmed) })).check;
export const getReleaseCheck = (agentId: string, checkId: string) =>
  request<ReleaseReport>('GET', `${base(agentId)}/release-checks/${encodeURIComponent(checkId)}?limit=200`);
export const publishChecked = (agentId: string, version: number, releaseCheckId: string, override?: { reason: string }) =>
  request<Released>('POST', `${base(agentId)}/versions/${version}/publish`, {
    releaseCheckId,
    ...(override ? { override: true, reason: override.reason } : {}),
  } satisfies PublishBody);
