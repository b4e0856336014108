import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { wireCompany, type WiredCompany } from '../support/faultFixtures.js';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.js';
import { startFakePlatform, type FakePlatform } from '../support/fakePlatform.js';
import { freePort, startServiceProcess, type ServiceProcess } from '../support/serviceProcess.js';

/**
 * SIGKILL of the process whose replay worker is answering a release check's test cases, then a restart on the
 * same data directory. The embedded bus held the run's job in memory only, and the reactor that published it
 * has moved past it: unless the start-up sweep publishes it again, the check stays "running" for ever and the
 * publish it gates answers RELEASE_CHECKS_PENDING for ever. The run resumes where it was instead.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'mas-fault-testrun-'));
const env = { DATA_DIR: dataDir, ALLOW_PRIVATE_PLATFORM_URLS: 'true', REPLY_BURST_WINDOW_MS: '0', LLM_MAX_RETRIES: '0', LLM_TIMEOUT_MS: '120000' };
let platform: FakePlatform;
let llm: FakeLlm;
let proc: ServiceProcess | undefined;
let port: number;
let co: WiredCompany;

beforeAll(async () => {
  platform = await startFakePlatform({ token: 'tok-testrun' });
  llm = await startFakeLlm({ reply: 'We ship within 3 days.' });
  port = await freePort();
  proc = await startServiceProcess(env, port);
  co = await wireCompany(proc.base, { platformUrl: platform.url, platformToken: platform.token, llmUrl: llm.url });
}, 120_000);

afterAll(async () => {
  await proc?.kill('SIGKILL');
  await Promise.all([platform?.close(), llm?.close()]);
  rmSync(dataDir, { recursive: true, force: true });
});

describe('attack: the replay worker killed in the middle of a release check', () => {
  it('given a check answering its cases, when the process is SIGKILLed and restarted, then the check finishes and the publish it gates goes through', async () => {
    const agentId = (await co.call('GET', '/api/agents')).body.agents[0].id as string;
    const names = ['Shipping time', 'Shipping cost', 'Returns'];
    for (const name of names) {
      expect((await co.call('POST', `/api/agents/${agentId}/test-cases`, { name, turns: [`${name}?`], expect: { contains: [{ kind: 'text', value: 'ship' }] }, required: true })).status).toBe(201);
    }
    const draft = await co.call('POST', `/api/agents/${agentId}/versions`, { systemPrompt: 'Answer about shipping, briefly.' });
    expect(draft.status).toBe(201);
    const version = draft.body.version.version as number;
    const body = { version, conversations: 0 };
    const estimate = await co.call('POST', `/api/agents/${agentId}/release-checks/estimate`, body);
    expect(estimate.status).toBe(200);
    // The model hangs: the worker is answering the first case when the process dies.
    llm.delayMs = 600_000;
    const asked = llm.completionRequests.length;
    const started = await co.call('POST', `/api/agents/${agentId}/release-checks`, { ...body, confirmedCostMicros: estimate.body.estimate.costMicros });
    expect(started.status).toBe(202);
    const checkId = started.body.check.id as string;
    await eventually(() => expect(llm.completionRequests.length).toBeGreaterThan(asked), 30_000, 50);

    await proc!.kill('SIGKILL');
    llm.delayMs = 0;
    proc = await startServiceProcess(env, port);

    await eventually(
      async () => {
        const check = await co.call('GET', `/api/agents/${agentId}/release-checks/${checkId}`);
        expect(check.body.check.status).toBe('finished');
        expect(check.body.check.gate).toEqual({ passed: true, failedCases: [] });
      },
      60_000,
      200,
    );
    const published = await co.call('POST', `/api/agents/${agentId}/versions/${version}/publish`, { releaseCheckId: checkId });
    expect(published.status).toBe(200);
    expect(published.body.publishedVersion).toBe(version);
  }, 180_000);
});
