import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendTestMessageCli, USAGE } from '../../src/cli/sendTestMessage.js';
import { signUp } from '../support/api.js';
import { startTestServer, type TestServer } from '../support/testServer.js';

/** `npm run send-test-message -- <integrationId> "text"` against a real listening server, with a company API token. */

let server: TestServer;
let base: string;
let token: string;
let integrationId: number;

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l), fetch, sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)) } };
}

beforeAll(async () => {
  server = await startTestServer({ REPLY_BURST_WINDOW_MS: '0' });
  base = await server.listen(0, '127.0.0.1');
  const co = await signUp(server, 'Cli Co');
  const agentId = (await co.call('POST', '/api/agents', { name: 'Ava' })).json().agent.id;
  await co.call('POST', '/api/knowledge-base/documents', { title: 'Hours', content: 'We are open Monday to Friday from 9 to 17.' });
  integrationId = (await co.call('POST', '/api/integrations', { name: 'Try', connectorType: 'msgplatform', webhookSecret: 'whsec_cli_test_0123456789abcdef', agentId })).json().integration.id;
  token = (await co.call('POST', '/api/settings/api-tokens', { name: 'cli' })).json().token;
});

afterAll(async () => {
  await server?.close();
});

describe('send-test-message', () => {
  it('sends the message and prints the conversation link and the answer, delivered to the sandbox', async () => {
    const { out, err, io: cliIo } = io();
    const code = await sendTestMessageCli([String(integrationId), 'When are you open?'], { BASE_URL: base, MAS_API_TOKEN: token }, cliIo);
    expect(err).toEqual([]);
    expect(code).toBe(0);
    expect(out[0]).toMatch(new RegExp(`^sent to integration ${integrationId}; conversation [0-9a-f-]{36}$`));
    expect(out[1]).toMatch(new RegExp(`^open it: ${base}/#/conversations/[0-9a-f-]{36}$`));
    expect(out[2]).toContain('agent: ');
    expect(out[2]).toContain('Monday to Friday');
    expect(out[3]).toBe('delivered to the sandbox (the integration has no platform API URL: sent nowhere)');
  });

  it('given a question the knowledge base cannot answer, then it prints the handoff reply and says the conversation is now paused, handed off to a human', async () => {
    const { out, err, io: cliIo } = io();
    expect(await sendTestMessageCli([String(integrationId), 'Can I pay with bitcoin?'], { BASE_URL: base, MAS_API_TOKEN: token }, cliIo)).toBe(0);
    expect(err).toEqual([]);
    expect(out[2]).toMatch(/^agent: /);
    expect(out[4]).toBe('the conversation is now paused: handed off to a human');
    // The next test is a new test customer: answered, not swallowed by the paused conversation.
    const next = io();
    expect(await sendTestMessageCli([String(integrationId), 'When are you open?'], { BASE_URL: base, MAS_API_TOKEN: token }, next.io)).toBe(0);
    expect(next.out[2]).toContain('Monday to Friday');
  });

  it('takes --url and --token instead of the environment', async () => {
    const { out, io: cliIo } = io();
    expect(await sendTestMessageCli([String(integrationId), 'hi', '--url', base, `--token=${token}`, '--no-wait'], {}, cliIo)).toBe(0);
    expect(out).toHaveLength(2);
  });

  it.each([
    [[], 'integration id'],
    [['abc', 'hi'], 'integration id'],
    [['7'], 'message text'],
    [['7', 'a', 'b'], 'message text'],
    [['7', 'hi', '--bogus'], 'unknown option'],
  ])('bad usage %j: exit 2 with the usage line', async (argv, says) => {
    const { err, io: cliIo } = io();
    expect(await sendTestMessageCli(argv, { MAS_API_TOKEN: 'x' }, cliIo)).toBe(2);
    expect(err.join('\n')).toContain(says);
    expect(err.join('\n')).toContain(USAGE);
  });

  it('no token: exit 2 saying where to get one', async () => {
    const { err, io: cliIo } = io();
    expect(await sendTestMessageCli(['7', 'hi'], {}, cliIo)).toBe(2);
    expect(err[0]).toContain('MAS_API_TOKEN');
  });

  it("a wrong token: exit 1 saying the token was refused; another company's integration: exit 1 with the service's answer", async () => {
    const wrong = io();
    expect(await sendTestMessageCli([String(integrationId), 'hi'], { BASE_URL: base, MAS_API_TOKEN: 'mas_nope_nope' }, wrong.io)).toBe(1);
    expect(wrong.err[0]).toMatch(/^the token was refused \(401 UNAUTHORIZED\)/);
    expect(wrong.err[0]).toContain('Settings → API tokens');
    expect(wrong.err[0]).not.toContain('could not reach');
    const other = await signUp(server, 'Other');
    const otherToken = (await other.call('POST', '/api/settings/api-tokens', { name: 'cli' })).json().token;
    const foreign = io();
    expect(await sendTestMessageCli([String(integrationId), 'hi'], { BASE_URL: base, MAS_API_TOKEN: otherToken }, foreign.io)).toBe(1);
    expect(foreign.err[0]).toMatch(/^refused: 404 NOT_FOUND/);
  });

  it('given a token pasted with the example\'s "…", when sent, then it says the token was refused, not that the service is unreachable', async () => {
    const { err, io: cliIo } = io();
    expect(await sendTestMessageCli([String(integrationId), 'hi'], { BASE_URL: base, MAS_API_TOKEN: 'mas_…' }, cliIo)).toBe(2);
    expect(err[0]).toMatch(/^the token was refused before sending/);
    expect(err.join('\n')).not.toContain('could not reach');
  });

  it('a service that is not running: exit 1 saying it could not be reached and why', async () => {
    // A port that was free a moment ago: nothing listens there.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const { err, io: cliIo } = io();
    expect(await sendTestMessageCli(['7', 'hi'], { BASE_URL: `http://127.0.0.1:${port}`, MAS_API_TOKEN: token }, cliIo)).toBe(1);
    expect(err[0]).toBe(`could not reach the service at http://127.0.0.1:${port}: connection refused (nothing listens there) (is it running? set BASE_URL or --url)`);
  });
});

describe('send-test-message when the conversation is paused', () => {
  let slow: TestServer;
  let slowBase: string;
  let co: Awaited<ReturnType<typeof signUp>>;
  let slowToken: string;
  let slowIntegration: number;

  beforeAll(async () => {
    // The agent waits 1.5 s for more customer messages before it answers: time for a teammate to take over.
    slow = await startTestServer({ REPLY_BURST_WINDOW_MS: '1500' });
    slowBase = await slow.listen(0, '127.0.0.1');
    co = await signUp(slow, 'Paused Co');
    const agentId = (await co.call('POST', '/api/agents', { name: 'Ava' })).json().agent.id;
    await co.call('POST', '/api/knowledge-base/documents', { title: 'Hours', content: 'We are open Monday to Friday from 9 to 17.' });
    slowIntegration = (await co.call('POST', '/api/integrations', { name: 'Try', connectorType: 'msgplatform', webhookSecret: 'whsec_cli_test_0123456789abcdef', agentId })).json().integration.id;
    slowToken = (await co.call('POST', '/api/settings/api-tokens', { name: 'cli' })).json().token;
  });

  afterAll(async () => {
    await slow?.close();
  });

  it('given a teammate pauses the conversation before the agent answers, then it says the conversation is paused instead of waiting 30 s', async () => {
    const { out, err, io: cliIo } = io();
    const pausingFetch: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (init?.method === 'POST' && String(input).endsWith('/test-message') && res.status === 202) {
        const { conversationId } = (await res.clone().json()) as { conversationId: string };
        expect((await co.call('POST', `/api/conversations/${conversationId}/pause`)).statusCode).toBe(200);
      }
      return res;
    };
    const started = Date.now();
    const code = await sendTestMessageCli([String(slowIntegration), 'When are you open?'], { BASE_URL: slowBase, MAS_API_TOKEN: slowToken }, { ...cliIo, fetch: pausingFetch });
    expect(err).toEqual([]);
    expect(code).toBe(0);
    expect(out[2]).toBe('no answer: the conversation is paused (a teammate took it over), so the AI agent does not answer it; a teammate answers it in the dashboard, or resumes the AI there');
    expect(out.join('\n')).not.toContain('is an active agent assigned');
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
