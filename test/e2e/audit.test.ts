import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhookBody } from '../../src/http/platformWebhooks/webhookSignature.js';
import type { Doc, ReadStore } from '../../src/ports/readStore.js';
import { allProjections } from '../../src/projections/index.js';
import { rebuildProjections } from '../../src/processing/projectionRunner.js';
import { silentLogger } from '../../src/ports/logger.js';
import { signUp } from '../support/api.js';
import { startFakePlatform, type FakePlatform } from '../support/fakePlatform.js';
import { startTestServer, type TestServer } from '../support/testServer.js';
import { embeddedEnv } from '../support/embeddedEnv.js';

const run = promisify(execFile);
const SECRET = 'whsec_audit_0123456789abc';
let server: TestServer;
let platform: FakePlatform;
let conversationId: string;

async function dump(store: ReadStore): Promise<Record<string, Doc[]>> {
  const out: Record<string, Doc[]> = {};
  for (const projection of allProjections) {
    for (const { name } of projection.collections) {
      const docs: Doc[] = [];
      let cursor: string | null = null;
      do {
        const page: { items: Doc[]; nextCursor: string | null } = await store.find(name, { limit: 500, cursor });
        docs.push(...page.items);
        cursor = page.nextCursor;
      } while (cursor);
      out[name] = docs.sort((a, b) => a.id.localeCompare(b.id));
    }
  }
  return out;
}

beforeAll(async () => {
  platform = await startFakePlatform({ token: 'tok-audit' });
  server = await startTestServer({ ALLOW_PRIVATE_PLATFORM_URLS: 'true', REPLY_BURST_WINDOW_MS: '100' });
  const base = await server.listen(0, '127.0.0.1');
  const co = await signUp(server, 'Audit Ltd');
  const agent = (await co.call('POST', '/api/agents', { name: 'Aud' })).json().agent;
  await co.call('POST', '/api/knowledge-base/documents', { title: 'Returns', content: 'Returns are accepted within 30 days with the receipt.' });
  const integration = (
    await co.call('POST', '/api/integrations', { name: 'P', connectorType: 'msgplatform', apiUrl: platform.url, apiToken: 'tok-audit', webhookSecret: SECRET, agentId: agent.id })
  ).json().integration;
  const send = async (payload: object) => {
    const body = JSON.stringify(payload);
    const res = await fetch(`${base}/api/webhook/msgplatform/${integration.id}`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(body, SECRET) } });
    expect(res.status).toBe(200);
  };
  await send({ hook_type: 'inbox', type: 'from_client', message_id: 'a1', request_id: 71, client_id: 'audit-client', channel_id: 3, transport: 'viber', text: 'Can I return my order after 30 days?' });
  await platform.waitForMessages(1, 10_000);
  conversationId = (await co.call('GET', '/api/conversations')).json().conversations[0].id;
  for (let i = 0; i < 100 && (await co.call('GET', `/api/conversations/${conversationId}`)).json().messages.at(-1)?.delivery !== 'sent'; i++) {
    await new Promise((r) => setTimeout(r, 50));
  }
  const stages = (await co.call('GET', '/api/pipeline')).json().pipeline.stages;
  await co.call('PUT', `/api/conversations/${conversationId}/stage`, { stageId: stages[2].id });
  await send({ hook_type: 'dialog_transferred', request_id: 71, dialog_id: 99 });
  await send({ hook_type: 'close_dialog', request_id: 71 });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await platform?.close();
});

describe('audit replay', () => {
  it('`npm run replay -- <conversationId>` prints the timeline from the event store', async () => {
    const { stdout } = await run('npx', ['tsx', 'src/cli/replay.ts', conversationId], { env: embeddedEnv({ DATA_DIR: server.dataDir, LOG_LEVEL: 'silent' }) });
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^#0\t@\d+\t\S+Z\tConversationStarted\tconversation started on integration \d+ \(msgplatform\) with customer "audit-client"$/);
    // The handoff's summary is written off the reply path: it lands beside the session's events, wherever its job finishes.
    const types = lines.map((l) => l.split('\t')[3]).filter((t) => t !== 'HandoffSummarized');
    expect(types).toEqual([
      'ConversationStarted',
      'AiSessionOpened',
      'MessageReceived',
      'WebhookDeliveryLogged', // each accepted delivery's log entry is appended with its events
      'AgentReplied',
      'MessageSendAttempted',
      'MessageDelivered',
      'StageChanged',
      'DialogTransferred',
      'AiSessionPaused',
      'WebhookDeliveryLogged',
      'AiSessionClosed',
      'WebhookDeliveryLogged',
    ]);
    expect(stdout).toMatch(/webhook delivery \S+ logged: 200 processed \(message\)/);
    expect(stdout).toContain('customer: "Can I return my order after 30 days?"');
    expect(stdout).toContain('AI session closed (close_dialog, session_close)');
  });

  it('refuses a malformed conversation id with usage help', async () => {
    await expect(run('npx', ['tsx', 'src/cli/replay.ts', 'nope'], { env: embeddedEnv({ DATA_DIR: server.dataDir }) })).rejects.toMatchObject({ code: 2 });
  });

  it('rebuilding the read models from the events reproduces every document exactly', async () => {
    const store = server.adapters.readStore;
    await server.projections.waitForPosition((await server.adapters.eventStore.headPosition())!);
    const live = await dump(store);
    expect(live.conversations!.length).toBeGreaterThan(0);
    expect(live.messages!.length).toBeGreaterThanOrEqual(2);
    // The AI reply's provenance (the passage it quoted) is part of what a rebuild must reproduce.
    const reply = live.messages!.find((m) => (m as { author?: string }).author === 'agent') as { answer?: { provenance: { sources: unknown[] } | null } } | undefined;
    expect(reply?.answer?.provenance?.sources).toHaveLength(1);
    const result = await rebuildProjections({ eventStore: server.adapters.eventStore, readStore: store, projections: allProjections, logger: silentLogger });
    expect(result.generation).toBeGreaterThan(1);
    expect(await store.activeGeneration()).toBe(result.generation);
    expect(await dump(store)).toEqual(live);
  });
});
