import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { eventCatalog } from '../../../../src/domain/catalog.js';
import { MemoryEventStore } from '../../../../src/infrastructure/memory/memoryEventStore.js';
import { SqliteReadStore } from '../../../../src/infrastructure/sqlite/sqliteReadStore.js';
import { validatingEventStore } from '../../../../src/infrastructure/validatingEventStore.js';
import { silentLogger } from '../../../../src/ports/logger.js';
import type { ReadStore } from '../../../../src/ports/readStore.js';
import { ANALYTICS_COMPANIES, ANALYTICS_CONVERSATIONS, ANALYTICS_DAYS, ANALYTICS_INTEGRATIONS, type AnalyticsDayDoc } from '../../../../src/projections/analytics/analyticsDay.js';
import { analyticsProjection } from '../../../../src/projections/analytics/analyticsProjection.js';
import { rebuildProjections, startProjections, type ProjectionRunner } from '../../../../src/processing/projectionRunner.js';
import { allDocs, byId } from '../../../support/projectionSpec.js';

/**
 * The analytics documents the live projector builds (events arriving in small batches while it runs) are
 * exactly those a rebuild from scratch builds: deep equal, field by field, in every collection.
 */

/** Deterministic pseudo-random numbers (mulberry32), so a failure reproduces. */
function prng(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Ev = { stream: string; type: string; data: Record<string, unknown> };

/** A realistic mix over two companies, three integrations and twelve days, with a timezone change and an agent change. */
function realisticEvents(seed: number): Ev[] {
  const rnd = prng(seed);
  const pick = <T,>(xs: T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const uuid = () => randomUUID();
  const companies = [uuid(), uuid()];
  const agents = [uuid(), uuid(), uuid()];
  const integrations = [
    { id: 101, companyId: companies[0]!, agentId: agents[0]! },
    { id: 102, companyId: companies[0]!, agentId: agents[1]! },
    { id: 201, companyId: companies[1]!, agentId: agents[2]! },
  ];
  const out: Ev[] = [];
  let clock = Date.parse('2025-03-01T00:00:00.000Z');
  const tick = (maxMs: number) => new Date((clock += 1 + Math.floor(rnd() * maxMs))).toISOString();
  for (const i of integrations) {
    out.push({ stream: `integration-${i.id}`, type: 'IntegrationCreated', data: { integrationId: i.id, companyId: i.companyId, connectorType: 'msgplatform', name: `I${i.id}`, apiUrl: null, webhookSecret: null, apiToken: null, active: true, agentId: i.agentId, allowedOrigins: [], at: tick(1000) } });
  }
  const conversations: { id: string; integration: (typeof integrations)[number]; session: string; open: boolean; waiting: string[]; paused: boolean }[] = [];
  for (let step = 0; step < 600; step++) {
    const at = tick(30 * 60_000);
    const r = rnd();
    if (step === 250) out.push({ stream: `company-${companies[0]}`, type: 'CompanyTimezoneSet', data: { timezone: 'Asia/Tokyo', previousTimezone: 'UTC', by: 'user:x', at } });
    if (step === 400) out.push({ stream: 'integration-102', type: 'IntegrationUpdated', data: { changes: { agentId: agents[0] }, at } });
    if (conversations.length === 0 || r < 0.12) {
      const integration = pick(integrations);
      const c = { id: uuid(), integration, session: uuid(), open: true, waiting: [] as string[], paused: false };
      conversations.push(c);
      const s = `conversation-${c.id}`;
      out.push({ stream: s, type: 'ConversationStarted', data: { conversationId: c.id, companyId: integration.companyId, integrationId: integration.id, connectorType: 'msgplatform', customer: { clientId: c.id.slice(0, 8), channelId: null, transport: 'telegram' }, stageId: null, at } });
      out.push({ stream: s, type: 'AiSessionOpened', data: { sessionId: c.session, at } });
    }
    const c = pick(conversations);
    const s = `conversation-${c.id}`;
    const action = rnd();
    if (!c.open) {
      c.session = uuid();
      c.open = true;
      c.paused = false;
      out.push({ stream: s, type: 'AiSessionOpened', data: { sessionId: c.session, at } });
    }
    if (c.waiting.length === 0 || action < 0.35) {
      const id = uuid();
      c.waiting.push(id);
      out.push({ stream: s, type: 'MessageReceived', data: { messageId: id, dedupeKey: `k${id}`, dedupeUntil: null, text: 'hello', platform: {}, at } });
      if (rnd() < 0.05) out.push({ stream: s, type: 'HumanRequested', data: { messageId: id, at } });
      continue;
    }
    if (!c.paused && action < 0.7) {
      const reply = uuid();
      const handoff = rnd() < 0.15;
      out.push({ stream: s, type: 'AgentReplied', data: { messageId: reply, sessionId: c.session, agentId: c.integration.agentId, text: 'answer', inReplyTo: c.waiting, model: 'builtin', inputTokens: 10, outputTokens: 5, handoff, at } });
      out.push({ stream: `credits-${c.integration.companyId}`, type: 'CreditsConsumed', data: { amountMicros: 1 + Math.floor(rnd() * 900), model: 'builtin', inputTokens: 10, outputTokens: 5, conversationId: c.id, replyId: reply, at } });
      c.waiting = [];
      if (handoff) {
        out.push({ stream: s, type: 'AiSessionPaused', data: { sessionId: c.session, reason: 'handoff', by: null, at } });
        c.paused = true;
      }
      out.push(rnd() < 0.1 ? { stream: s, type: 'MessageDeliveryFailed', data: { messageId: reply, reason: 'platform down', attempts: 3, at: tick(5000) } } : { stream: s, type: 'MessageDelivered', data: { messageId: reply, platformMessageId: null, at: tick(5000) } });
    } else if (!c.paused && action < 0.75) {
      out.push({ stream: s, type: 'MessagesUnanswered', data: { messageIds: c.waiting, reason: 'LLM failed', at } });
      out.push({ stream: s, type: 'AiSessionPaused', data: { sessionId: c.session, reason: 'handoff', by: null, at } });
      c.paused = true;
    } else if (action < 0.9) {
      out.push({ stream: s, type: 'OperatorMessageSent', data: { messageId: uuid(), text: 'human here', by: 'user:x', at } });
      c.waiting = [];
    } else if (action < 0.95) {
      out.push({ stream: s, type: 'DialogTransferred', data: { action: 'session_transfer_external', dialogId: 1, requestId: 2, at } });
    } else {
      out.push({ stream: s, type: 'AiSessionClosed', data: { sessionId: c.session, reason: 'api', action: 'session_close', by: null, at } });
      c.open = false;
      c.waiting = [];
    }
  }
  // A playground-style stream (its own category) and a charge that names no customer conversation.
  out.push({ stream: `playground-${uuid()}`, type: 'MessageReceived', data: { messageId: uuid(), dedupeKey: 'p', dedupeUntil: null, text: 'test', platform: {}, at: tick(1000) } });
  out.push({ stream: `credits-${companies[0]}`, type: 'CreditsConsumed', data: { amountMicros: 777, model: 'builtin', inputTokens: 1, outputTokens: 1, conversationId: uuid(), replyId: uuid(), at: tick(1000) } });
  return out;
}

const COLLECTIONS = [ANALYTICS_DAYS, ANALYTICS_CONVERSATIONS, ANALYTICS_COMPANIES, ANALYTICS_INTEGRATIONS];
const snapshot = async (store: ReadStore) => Object.fromEntries(await Promise.all(COLLECTIONS.map(async (c) => [c, (await allDocs(store, c)).sort(byId)] as const)));

describe('analytics projection: rebuild', () => {
  let runner: ProjectionRunner | null = null;
  let readStore: ReadStore | null = null;
  afterEach(async () => {
    await runner?.stop();
    await readStore?.close();
  });

  it('a rebuild from scratch reproduces the live documents exactly', async () => {
    const eventStore = validatingEventStore(new MemoryEventStore(), eventCatalog);
    readStore = SqliteReadStore.open({ path: ':memory:' });
    runner = startProjections({ eventStore, readStore, projections: [analyticsProjection], logger: silentLogger, batchSize: 7 });
    const events = realisticEvents(20250310);
    expect(events.length).toBeGreaterThan(900);
    // Appended in uneven chunks while the projector runs, so live batches fall differently from the rebuild's.
    let position = 0n;
    for (let i = 0; i < events.length; ) {
      const chunk = events.slice(i, (i += 1 + (i % 13)));
      for (const e of chunk) position = (await eventStore.append(e.stream, [{ id: randomUUID(), type: e.type, data: e.data }], 'any')).position;
      if (i % 5 === 0) await runner.waitForPosition(position, 20_000);
    }
    await runner.waitForPosition(position, 20_000);
    const live = await snapshot(readStore);

    const days = live[ANALYTICS_DAYS] as AnalyticsDayDoc[];
    const sum = (f: (d: AnalyticsDayDoc) => number) => days.filter((d) => d.scope === 'company').reduce((a, d) => a + f(d), 0);
    // The mix exercised every series (else the comparison would prove little).
    for (const counter of ['conversationsStarted', 'customerMessages', 'aiReplies', 'aiResolved', 'handedOff', 'deliveryFailed', 'unanswered', 'operatorMessages', 'creditsSpentMicros'] as const) {
      expect(sum((d) => d[counter]), counter).toBeGreaterThan(0);
    }
    expect(sum((d) => d.humanFirstResponse.reduce((a, b) => a + b, 0))).toBeGreaterThan(0);
    expect(new Set(days.map((d) => d.scope)).size).toBeGreaterThanOrEqual(6);

    await runner.stop();
    runner = null;
    const result = await rebuildProjections({ eventStore, readStore, projections: [analyticsProjection], logger: silentLogger, batchSize: 500 });
    expect(result.generation).toBeGreaterThan(1);
    expect(await snapshot(readStore)).toStrictEqual(live);
  });
});
