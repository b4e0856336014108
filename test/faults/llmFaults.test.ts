import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../src/ports/eventStore.js';
import { wireCompany } from '../support/faultFixtures.js';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.js';
import { startFakePlatform, type FakePlatform } from '../support/fakePlatform.js';
import { report, storeProblems } from '../support/storeCheck.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

/** The LLM hangs or fails: the reply is given up with a reason, the conversation goes to a human, others are unaffected. */
const LLM_TIMEOUT_MS = 800;
let server: TestServer;
let base: string;
let platform: FakePlatform;
let hanging: FakeLlm;
let failing: FakeLlm;
let healthy: FakeLlm;

beforeAll(async () => {
  platform = await startFakePlatform({ token: 'tok-llm-faults' });
  hanging = await startFakeLlm({ delayMs: 10 * 60_000 });
  failing = await startFakeLlm();
  healthy = await startFakeLlm();
  server = await startTestServer({
    ALLOW_PRIVATE_PLATFORM_URLS: 'true',
    REPLY_BURST_WINDOW_MS: '0',
    LLM_TIMEOUT_MS: String(LLM_TIMEOUT_MS),
    LLM_MAX_RETRIES: '1',
    LLM_RETRY_DELAYS_MS: '50',
  });
  base = await server.listen(0, '127.0.0.1');
});
afterAll(async () => {
  await server?.close();
  await Promise.all([platform?.close(), hanging?.close(), failing?.close(), healthy?.close()]);
});

const conversationOf = async (clientId: string) => {
  const started = await server.adapters.eventStore.readAll({ filter: { eventTypes: ['ConversationStarted'] } });
  const e = started.find((s) => (s.data as { customer: { clientId: unknown } }).customer.clientId === clientId);
  return e ? server.adapters.eventStore.readStream(e.stream) : [];
};
const ofType = (events: RecordedEvent[], type: string) => events.filter((e) => e.type === type).map((e) => e.data as Record<string, any>);
/** The calls made to answer the customer (the handoff summary's own call, which fails too, is left out). */
const answerCalls = (llm: FakeLlm) => llm.completionRequests.filter((r) => !JSON.stringify(r.body).includes('handoff note')).length;
const sentTo = (clientId: string) => platform.messages().filter((m) => m.client_id === clientId);

describe('fault: a hanging LLM', () => {
  it('marks the message unanswered with the timeout as reason, sends the handoff message and hands off; another company is answered meanwhile', async () => {
    const stuck = await wireCompany(base, { platformUrl: platform.url, platformToken: platform.token, llmUrl: hanging.url, name: 'Stuck' });
    const fine = await wireCompany(base, { platformUrl: platform.url, platformToken: platform.token, llmUrl: healthy.url, name: 'Fine' });
    const started = Date.now();
    expect(await stuck.post({ clientId: 'hang-1', messageId: 'hang-m1', text: 'anyone there?' })).toBe(200);
    await expect.poll(() => hanging.completionRequests.length, { timeout: 5000, interval: 20 }).toBe(1);
    expect(await fine.post({ clientId: 'fine-1', messageId: 'fine-m1', text: 'hello' })).toBe(200);
    await platform.waitForMessages(1, 5000);
    const answeredAfter = Date.now() - started;
    expect(sentTo('fine-1')).toEqual([expect.objectContaining({ text: 'Echo: hello' })]);
    // Answered while the other conversation's LLM call was still hanging.
    expect(answeredAfter).toBeLessThan(LLM_TIMEOUT_MS * 2);

    await expect.poll(async () => ofType(await conversationOf('hang-1'), 'MessagesUnanswered').length, { timeout: 15_000, interval: 100 }).toBe(1);
    const events = await conversationOf('hang-1');
    const [unanswered] = ofType(events, 'MessagesUnanswered');
    expect(unanswered!.reason).toBe('The AI model did not answer in time (timeout)');
    expect(ofType(events, 'AiSessionPaused')).toEqual([expect.objectContaining({ reason: 'handoff' })]);
    // Never silence: the customer gets the agent's handoff message instead of an answer.
    expect(ofType(events, 'AgentReplied')).toEqual([expect.objectContaining({ text: 'A colleague will reply soon.', handoff: true, aiFailed: true })]);
    await expect.poll(() => sentTo('hang-1'), { timeout: 5000, interval: 50 }).toEqual([expect.objectContaining({ text: 'A colleague will reply soon.' })]);
    // Per attempt of the reply worker, the SDK tried twice (LLM_MAX_RETRIES=1); the worker tried twice (one retry delay).
    expect(answerCalls(hanging)).toBe(4);
    expect(await storeProblems(server.adapters.eventStore)).toEqual([]);
    report(
      `hanging LLM (never answers, LLM_TIMEOUT_MS=${LLM_TIMEOUT_MS}): 4 attempts, then MessagesUnanswered "${unanswered!.reason}" + paused(handoff) ` +
        `after ${Date.now() - started} ms; another company answered after ${answeredAfter} ms meanwhile`,
    );
  }, 30_000);
});

describe('fault: an LLM answering 500', () => {
  it('is retried, then the message is marked unanswered with the reason, the customer gets the handoff message, and a human takes over', async () => {
    failing.failNext(100, 500);
    const co = await wireCompany(base, { platformUrl: platform.url, platformToken: platform.token, llmUrl: failing.url, name: 'Failing' });
    expect(await co.post({ clientId: 'fail-1', messageId: 'fail-m1', text: 'hello?' })).toBe(200);
    await expect.poll(async () => ofType(await conversationOf('fail-1'), 'MessagesUnanswered').length, { timeout: 15_000, interval: 100 }).toBe(1);
    const events = await conversationOf('fail-1');
    const [unanswered] = ofType(events, 'MessagesUnanswered');
    expect(unanswered!.reason).toBe("The AI model's service had an error (HTTP 500)");
    expect(ofType(events, 'AiSessionPaused')).toEqual([expect.objectContaining({ reason: 'handoff' })]);
    expect(answerCalls(failing)).toBe(4);
    await expect.poll(() => sentTo('fail-1'), { timeout: 5000, interval: 50 }).toEqual([expect.objectContaining({ text: 'A colleague will reply soon.' })]);
    // The conversation says why: its detail shows the session paused for a human.
    const list = await co.call('GET', '/api/conversations');
    expect(list.body.conversations[0].session).toMatchObject({ state: 'paused', pausedReason: 'handoff' });
    report(`LLM answering 500 to every call: ${answerCalls(failing)} attempts, then MessagesUnanswered "${unanswered!.reason}" + paused(handoff), the handoff message sent`);
  }, 30_000);
});
