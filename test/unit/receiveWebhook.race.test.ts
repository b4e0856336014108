import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { handleCommand, loadState } from '../../src/commands/handleCommand.js';
import { receiveWebhook, type LiveIntegration } from '../../src/commands/platformWebhooks/receiveWebhook.js';
import { conversationDecider, conversationStream } from '../../src/domain/conversations/decider.js';
import { classifyWebhookJson } from '../../src/domain/platformWebhooks/payload.js';
import { SqliteEventStore } from '../../src/infrastructure/sqlite/sqliteEventStore.js';
import type { EventStore } from '../../src/ports/eventStore.js';
import { silentLogger } from '../../src/ports/logger.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Two instances of the service: two connections to one SQLite file, each append held back so both decide first. */
function twoInstances(): [EventStore, EventStore] {
  const dir = mkdtempSync(join(tmpdir(), 'mas-race-'));
  dirs.push(dir);
  const open = () => {
    const store = new SqliteEventStore(join(dir, 'events.db'), { pollMs: 50 });
    const append = store.append.bind(store);
    store.append = async (stream, events, expected) => {
      await new Promise((r) => setTimeout(r, 30));
      return append(stream, events, expected);
    };
    return store;
  };
  return [open(), open()];
}

const companyId = randomUUID();
const integration = { status: 'active', integrationId: 7, companyId, connectorType: 'msgplatform' } as LiveIntegration;
const clock = { now: () => new Date('2026-11-22T10:00:00.000Z') };
const deps = (eventStore: EventStore) => ({ eventStore, clock, logger: silentLogger, findConversationByRef: async () => null });

describe('a first message delivered twice at once, to two instances', () => {
  it('stores it once, and both instances then agree on the AI session, so the reply is not dropped', async () => {
    const [a, b] = twoInstances();
    const raw = JSON.stringify({ hook_type: 'inbox', type: 'from_client', message_id: 'm-1', client_id: 'c-1', channel_id: 1, transport: 'telegram', text: 'Hi' });
    const payload = classifyWebhookJson(raw);
    if (payload.kind === 'invalid') throw new Error('payload');
    const [first, second] = await Promise.all([
      receiveWebhook(deps(a), integration, payload, Buffer.from(raw)),
      receiveWebhook(deps(b), integration, payload, Buffer.from(raw)),
    ]);
    expect([first.outcome, second.outcome].sort()).toEqual(['duplicate', 'processed']);
    const stream = conversationStream(first.conversationId!);
    const stored = await a.readStream(stream);
    expect(stored.map((e) => e.type)).toEqual(['ConversationStarted', 'AiSessionOpened', 'MessageReceived']);
    const storedSession = (stored[1]!.data as { sessionId: string }).sessionId;
    const messageId = (stored[2]!.data as { messageId: string }).messageId;

    // Each instance's cached state names the stored session: a reply generated on either is appended.
    for (const store of [a, b]) {
      expect((await loadState(store, stream, conversationDecider)).state.session?.id).toBe(storedSession);
    }
    const reply = await handleCommand(b, stream, conversationDecider, {
      type: 'AppendAgentReply',
      messageId: randomUUID(),
      sessionId: storedSession,
      agentId: null,
      text: 'Hello!',
      inReplyTo: [messageId],
      model: 'm',
      inputTokens: 1,
      outputTokens: 1,
      handoff: false,
      now: clock.now().toISOString(),
    });
    expect(reply.events.map((e) => e.type)).toEqual(['AgentReplied']);
    await a.close();
    await b.close();
  });
});
