import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentWithVersions } from '../support/agentFixtures.js';
import { signUp, type Company } from '../support/api.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

/**
 * Attacks on agent releases (docs/api/agents-and-llm.md): concurrent publishes, rollbacks, drafts and experiments
 * on one agent; the largest inputs the API allows; malformed version numbers and splits. Each reads as the spec:
 * given an agent, when requests race or are malformed, then what the API promises still holds.
 */

let server: TestServer;
let co: Company;

beforeAll(async () => {
  server = await startTestServer({ REPLY_BURST_WINDOW_MS: '0' });
  co = await signUp(server, 'Attack Co');
});
afterAll(async () => server?.close());

const versionsOf = async (agentId: string) => (await co.call('GET', `/api/agents/${agentId}/versions?limit=100`)).json();
const publicationsOf = async (agentId: string) => (await co.call('GET', `/api/agents/${agentId}/publications?limit=100`)).json().publications as { version: number; previousVersion: number }[];

/** Every publication starts from the one before it (newest first in the list): no publish decided on a stale state. */
function expectUnbrokenChain(publications: { version: number; previousVersion: number }[], published: number) {
  expect(publications[0]?.version).toBe(published);
  for (let i = 0; i + 1 < publications.length; i++) expect(publications[i]!.previousVersion).toBe(publications[i + 1]!.version);
}

describe('attack: races on one agent', () => {
  it('given drafts 2 and 3, when both are published at once, then the agent shows the last publish and the publications chain without a gap', async () => {
    const agentId = await agentWithVersions(co, {}, [{ systemPrompt: 'Two.' }, { systemPrompt: 'Three.' }]);
    const results = await Promise.all([2, 3].map((v) => co.call('POST', `/api/agents/${agentId}/versions/${v}/publish`, {})));
    const ok = results.filter((r) => r.statusCode === 200);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    // The loser, if any, lost to an order that made it a rollback without a reason: refused, nothing recorded.
    for (const r of results.filter((r) => r.statusCode !== 200)) expect(r.json().error.code).toBe('VALIDATION_ERROR');
    const listed = await versionsOf(agentId);
    expect(listed.versions.map((v: { version: number }) => v.version)).toEqual([3, 2, 1]);
    expectUnbrokenChain(await publicationsOf(agentId), listed.publishedVersion);
    expect((await co.call('GET', `/api/agents/${agentId}`)).json().agent.systemPrompt).toBe(listed.publishedVersion === 3 ? 'Three.' : 'Two.');
  });

  it('given version 3 published, when a publish of 2 with a reason and a rollback to 1 race, then one of them is live and both are recorded in order', async () => {
    const agentId = await agentWithVersions(co, {}, [{ systemPrompt: 'Two.' }, { systemPrompt: 'Three.' }]);
    expect((await co.call('POST', `/api/agents/${agentId}/versions/3/publish`, {})).statusCode).toBe(200);
    const [a, b] = await Promise.all([
      co.call('POST', `/api/agents/${agentId}/versions/2/publish`, { reason: 'back one' }),
      co.call('POST', `/api/agents/${agentId}/rollback`, { version: 1, reason: 'back to the start' }),
    ]);
    expect(a.statusCode).toBe(200);
    // The rollback to 1 is older than whatever is published: it always goes through.
    expect(b.statusCode).toBe(200);
    const listed = await versionsOf(agentId);
    const publications = await publicationsOf(agentId);
    expect(publications).toHaveLength(3);
    expectUnbrokenChain(publications, listed.publishedVersion);
  });

  it('given one draft base, when ten drafts are saved at once, then versions 2..11 exist once each, each built on the one before', async () => {
    const agentId = await agentWithVersions(co, {});
    const saved = await Promise.all(Array.from({ length: 10 }, (_, i) => co.call('POST', `/api/agents/${agentId}/versions`, { systemPrompt: `Prompt ${i}.` })));
    expect(saved.map((r) => r.statusCode)).toEqual(Array(10).fill(201));
    const versions = (await versionsOf(agentId)).versions as { version: number; basedOn: number | null }[];
    expect(versions.map((v) => v.version)).toEqual([11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
    for (const v of versions.filter((v) => v.version > 1)) expect(v.basedOn).toBe(v.version - 1);
  });

  it('when an experiment starts while a publish runs, then either the publish went first (and the experiment runs) or the publish is refused with CONFLICT', async () => {
    const agentId = await agentWithVersions(co, {}, [{ systemPrompt: 'Two.' }, { systemPrompt: 'Three.' }]);
    const [published, started] = await Promise.all([
      co.call('POST', `/api/agents/${agentId}/versions/3/publish`, {}),
      co.call('POST', `/api/agents/${agentId}/experiments`, { versions: [1, 2], split: [50, 50] }),
    ]);
    expect(started.statusCode).toBe(201);
    if (published.statusCode !== 200) expect(published.json().error.code).toBe('CONFLICT');
    const agent = (await versionsOf(agentId));
    expect(agent.publishedVersion).toBe(published.statusCode === 200 ? 3 : 1);
  });

  it('given a running experiment, when it is ended twice at once, then the winner is published once', async () => {
    const agentId = await agentWithVersions(co, {}, [{ systemPrompt: 'Two.' }]);
    const experiment = (await co.call('POST', `/api/agents/${agentId}/experiments`, { versions: [1, 2], split: [50, 50] })).json().experiment;
    const ends = await Promise.all([0, 1].map(() => co.call('POST', `/api/agents/${agentId}/experiments/${experiment.id}/end`, { winner: 2, reason: 'two won' })));
    expect(ends.map((r) => r.statusCode)).toEqual([200, 200]);
    expect(ends.map((r) => r.json().publishedVersion)).toEqual([2, 2]);
    const publications = await publicationsOf(agentId);
    expect(publications.filter((p) => p.version === 2)).toHaveLength(1);
    expect((await co.call('GET', `/api/agents/${agentId}/experiments/${experiment.id}`)).json().experiment).toMatchObject({ status: 'ended', winner: 2 });
  });
});

describe('attack: malformed versions and splits', () => {
  it('a version that is a word, negative, fractional or huge is 400 in a path and a body, and an unknown one is 404', async () => {
    const agentId = await agentWithVersions(co, {}, [{ systemPrompt: 'Two.' }]);
    for (const v of ['two', '-1', '0', '1.5', '1e400', '99999999999999999999']) {
      expect((await co.call('POST', `/api/agents/${agentId}/versions/${v}/publish`, {})).statusCode, v).toBe(400);
      expect((await co.call('GET', `/api/agents/${agentId}/versions/${v}`)).statusCode, v).toBe(400);
    }
    expect((await co.call('GET', `/api/agents/${agentId}/versions/3`)).statusCode).toBe(404);
    expect((await co.call('POST', `/api/agents/${agentId}/versions/999999/publish`, {})).statusCode).toBe(404);
    for (const version of ['2', -1, 1.5, 1e300, null]) {
      expect((await co.call('POST', `/api/agents/${agentId}/rollback`, { version, reason: 'why' })).statusCode, String(version)).toBe(400);
    }
    for (const q of ['from=a&to=2', 'from=-1&to=2', 'from=1.5&to=2', 'from=1', 'from=1e400&to=2']) {
      expect((await co.call('GET', `/api/agents/${agentId}/diff?${q}`)).statusCode, q).toBe(400);
    }
    expect((await co.call('GET', `/api/agents/${agentId}/diff?from=1&to=99`)).statusCode).toBe(404);
    expect((await versionsOf(agentId)).publishedVersion).toBe(1);
  });

  it('a diff from a newer to an older version, or of a version with itself, is the same comparison read the other way, or all equal', async () => {
    const agentId = await agentWithVersions(co, { systemPrompt: 'Be kind.' }, [{ systemPrompt: 'Be kind.\nBe brief.' }]);
    const backwards = (await co.call('GET', `/api/agents/${agentId}/diff?from=2&to=1`)).json().diff;
    expect(backwards.systemPrompt).toEqual([{ op: 'equal', line: 'Be kind.' }, { op: 'removed', line: 'Be brief.' }]);
    const same = (await co.call('GET', `/api/agents/${agentId}/diff?from=2&to=2`)).json().diff;
    expect(same.fields.every((f: { changed: boolean }) => !f.changed)).toBe(true);
    expect(same.systemPrompt.every((l: { op: string }) => l.op === 'equal')).toBe(true);
  });

  it('experiment splits that do not add up, shares of 0 or 100, and holdouts outside 0..50 are 400; the bounds themselves start', async () => {
    const agentId = await agentWithVersions(co, {}, [{ systemPrompt: 'Two.' }]);
    const start = (body: Record<string, unknown>) => co.call('POST', `/api/agents/${agentId}/experiments`, { versions: [1, 2], ...body });
    for (const body of [{ split: [50, 40] }, { split: [0, 100] }, { split: [100, 0] }, { split: [50.5, 49.5] }, { split: [-10, 110] }, { split: [50] }, { split: [50, 50], holdout: 51 }, { split: [50, 50], holdout: -1 }, { split: [50, 50], holdout: 0.5 }, { split: [50, 50], confidenceLevel: 0.5 }, { versions: [1, 1], split: [50, 50] }]) {
      expect((await start(body)).statusCode, JSON.stringify(body)).toBe(400);
    }
    expect((await start({ versions: [1, 7], split: [50, 50] })).statusCode).toBe(404);
    const bounds = await start({ split: [1, 99], holdout: 50 });
    expect(bounds.statusCode).toBe(201);
    expect(bounds.json().experiment).toMatchObject({ arms: [{ share: 1 }, { share: 99 }], holdout: { share: 50 } });
  });
});

describe('attack: regular expressions in expectations', () => {
  it('an expression that does not compile, or needs a backtracking engine, is 400 naming it; a catastrophic one on a long answer is decided on the answer, and the run finishes', async () => {
    // The builtin provider answers a question its knowledge base cannot with the handoff message: 1,999 a's and a "!".
    const agentId = await agentWithVersions(co, { handoffMessage: `${'a'.repeat(1_999)}!` });
    for (const value of ['(unclosed', '[z-a]', '(?<n>a)(?<n>b)', '(a)\\1', 'refund(?= now)', '(?<!not )sure']) {
      const res = await co.call('POST', `/api/agents/${agentId}/test-cases`, { name: 'Bad', turns: ['Hi'], expect: { notContains: [{ kind: 'text', value: 'x' }, { kind: 'regex', value }] } });
      expect(res.statusCode, value).toBe(400);
      expect(res.json().error, value).toEqual({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/^expect\.notContains\.1\.value: /) });
    }
    const saved = await co.call('POST', `/api/agents/${agentId}/test-cases`, { name: 'Slow', turns: ['Can I pay with a cheque?'], expect: { notContains: [{ kind: 'regex', value: '(a+)+$' }], contains: [{ kind: 'regex', value: '^(a|aa)+!$' }], handoff: true } });
    expect(saved.statusCode).toBe(201);
    const run = await co.call('POST', `/api/agents/${agentId}/test-runs`, {});
    expect(run.statusCode).toBe(202);
    const id = run.json().run.id as string;
    await expect.poll(async () => (await co.call('GET', `/api/agents/${agentId}/test-runs/${id}`)).json().run.status, { timeout: 10_000 }).toBe('finished');
    const [result] = (await co.call('GET', `/api/agents/${agentId}/test-runs/${id}`)).json().run.cases;
    expect(result.results).toEqual([
      { check: 'contains', expected: '/^(a|aa)+!$/', passed: true },
      { check: 'notContains', expected: '/(a+)+$/', passed: true },
      { check: 'handoff', expected: 'hands off', passed: true },
    ]);
    expect(result.status).toBe('passed');
    // The server answers again at once: nothing is left running the expression.
    expect((await co.call('GET', `/api/agents/${agentId}`)).statusCode).toBe(200);
  });
});

describe('attack: the largest inputs', () => {
  it('given two maximal prompts (20,000 characters, one line per character), then their diff answers fast', async () => {
    const agentId = await agentWithVersions(co, { systemPrompt: 'x\n'.repeat(10_000) }, [{ systemPrompt: 'y\n'.repeat(10_000) }]);
    const started = performance.now();
    const res = await co.call('GET', `/api/agents/${agentId}/diff?from=1&to=2`);
    expect(res.statusCode).toBe(200);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(res.json().diff.systemPrompt.filter((l: { op: string }) => l.op === 'removed')).toHaveLength(10_000);
    expect((await co.call('POST', `/api/agents/${agentId}/versions`, { systemPrompt: 'z'.repeat(20_001) })).statusCode).toBe(400);
  });

  it('given the most test cases (200) of the most turns (5), then a 201st and a sixth turn are refused, and the estimate of a run counts every turn', async () => {
    const agentId = await agentWithVersions(co, {});
    const turns = Array.from({ length: 5 }, (_, i) => `Turn ${i}: ${'w'.repeat(1_900)}`);
    for (let i = 0; i < 200; i += 20) {
      const batch = await Promise.all(Array.from({ length: 20 }, (_, j) => co.call('POST', `/api/agents/${agentId}/test-cases`, { name: `Case ${i + j}`, turns, expect: { maxChars: 65_536 } })));
      expect(batch.map((r) => r.statusCode)).toEqual(Array(20).fill(201));
    }
    const over = await co.call('POST', `/api/agents/${agentId}/test-cases`, { name: 'One too many', turns: ['Hi'], expect: {} });
    expect(over.statusCode).toBe(409);
    expect(over.json().error.code).toBe('QUOTA_EXCEEDED');
    expect((await co.call('POST', `/api/agents/${agentId}/test-cases`, { name: 'Six turns', turns: [...turns, 'six'], expect: {} })).statusCode).toBe(400);
    const estimate = (await co.call('POST', `/api/agents/${agentId}/test-runs/estimate`, {})).json().estimate;
    expect(estimate).toMatchObject({ cases: 200, messages: 1_000, costMicros: 0 });
  });
});
