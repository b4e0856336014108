import { jetstreamManager } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumerNameFor, type NatsBus } from '../../src/infrastructure/nats/natsBus.js';
import { GENERATE_REPLY } from '../../src/workers/replies/replyJobs.js';
import { createAgent, createPlatformIntegration, signUp, useOpenAiLlm, type Company } from '../support/api.js';
import { eventually } from '../support/eventually.js';
import { startFakeLlm, type FakeLlm } from '../support/fakeLlm.js';
import { startFakePlatform, type FakePlatform } from '../support/fakePlatform.js';
import { startNatsServer } from '../support/natsServer.js';
import { postPlatformWebhook } from '../support/platformWebhook.js';
import { startTestInstances, type TestInstances } from '../support/testServer.js';

/**
 * Fair share between companies over NATS JetStream, with two server instances whose processors compete on the
 * same durable consumers. One company floods; another, quiet, writes a few messages while the flood's backlog is
 * still large: the quiet company's customers are answered at once, not after the flood. And however large the
 * flood, every message ends in exactly one recorded state: answered once, or handed to people as "AI backlog".
 *
 * One company may use every slot of a processor (WORKER_COMPANY_CONCURRENCY = WORKER_CONCURRENCY): no slot is
 * kept free for others, so only the scheduler's turn order lets the quiet company in (with a cap below the slots,
 * the spare slot alone would, even in arrival order). A scheduler serving jobs in arrival order answers the quiet
 * messages after every noisy message queued before them (about 6 s here, within the absolute bound), and fails
 * the checks counted in noisy messages: nearly all of the backlog is answered before the last quiet message.
 */
const SECRET = 'whsec_fairness_0123456789ab';
const TOKEN = 'platform-token-fairness';
const SLOTS = 4;
const CAPACITY = 150;
const LLM_DELAY_MS = 150;
const NOISY = 700;
const QUIET = 10;
/** Webhooks in flight at once while the noisy company floods. */
const FLOOD_PARALLELISM = 12;

let nats: Awaited<ReturnType<typeof startNatsServer>>;
let platform: FakePlatform;
let llm: FakeLlm;
let instances: TestInstances;

beforeAll(async () => {
  nats = await startNatsServer();
  platform = await startFakePlatform({ token: TOKEN });
  llm = await startFakeLlm({ apiKey: 'sk-fair', reply: (body) => `Re: ${String(body.messages?.at(-1)?.content)}`, delayMs: LLM_DELAY_MS, usage: { prompt_tokens: 20, completion_tokens: 5 } });
  instances = await startTestInstances(2, {
    NATS_URL: nats.url,
    ALLOW_PRIVATE_PLATFORM_URLS: 'true',
    REPLY_BURST_WINDOW_MS: '0',
    WORKER_CONCURRENCY: String(SLOTS),
    WORKER_COMPANY_CONCURRENCY: String(SLOTS),
    REPLY_QUEUE_CAPACITY: String(CAPACITY),
  });
}, 60_000);

afterAll(async () => {
  await instances?.close();
  await nats?.stop();
  await platform?.close();
  await llm?.close();
});

interface Tenant {
  company: Company;
  integrationId: number;
}

async function tenant(name: string): Promise<Tenant> {
  const company = await signUp(instances.servers[0]!, name);
  const agentId = await createAgent(company, { name: `${name} agent`, systemPrompt: `You answer ${name}'s customers.` });
  await useOpenAiLlm(company, llm.url, { apiKey: 'sk-fair' });
  const integrationId = await createPlatformIntegration(company, { agentId, apiUrl: platform.url, apiToken: TOKEN, webhookSecret: SECRET });
  return { company, integrationId };
}

/** A new customer's first message, to the instance `i % 2`. */
const postMessage = (t: Tenant, clientId: string, i: number) =>
  postPlatformWebhook(instances.bases[i % 2]!, t.integrationId, SECRET, {
    hook_type: 'inbox',
    type: 'from_client',
    message_id: `m-${clientId}`,
    client_id: clientId,
    channel_id: 1,
    transport: 'telegram',
    text: `question from ${clientId}`,
  });

/** Runs `task(i)` for i < n, at most `parallelism` at once. */
async function pool(n: number, parallelism: number, task: (i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallelism }, async () => {
      while (next < n) await task(next++);
    }),
  );
}

/**
 * Reply jobs on the bus: published (one per message: both instances' reactors publish each, JetStream dedupes)
 * and not yet delivered to either processor.
 */
async function replyJobs(): Promise<{ published: number; undelivered: number }> {
  const bus = instances.servers[0]!.adapters.bus as NatsBus;
  const jsm = await jetstreamManager(bus.nc);
  const subject = bus.jobSubject(GENERATE_REPLY);
  const stream = await jsm.streams.info(bus.settings.streamName, { subjects_filter: subject });
  const consumer = await jsm.consumers.info(bus.settings.streamName, consumerNameFor(GENERATE_REPLY, 'reply-generator'));
  return { published: stream.state.subjects?.[subject] ?? 0, undelivered: consumer.num_pending };
}

/** The replies the fake platform received, with when. */
const replies = () =>
  platform.received
    .filter((r) => r.method === 'POST' && r.path.startsWith('/v1/messages'))
    .map((r) => ({ clientId: String((r.body as { client_id: unknown }).client_id), at: r.at.getTime() }));
const isNoisy = (clientId: string) => clientId.startsWith('noisy-');
const isQuiet = (clientId: string) => clientId.startsWith('quiet-');

interface ConversationRow {
  id: string;
  customer: { clientId: string | number };
  unansweredReason: string | null;
  handoff: { reason: string; detail: string | null } | null;
}

/** Every conversation of the company, through the API (the read model). */
async function conversationsOf(t: Tenant): Promise<ConversationRow[]> {
  const rows: ConversationRow[] = [];
  let cursor: string | null = null;
  do {
    const res = await t.company.call('GET', `/api/conversations?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(res.statusCode).toBe(200);
    const page = res.json() as { conversations: ConversationRow[]; nextCursor: string | null };
    rows.push(...page.conversations);
    cursor = page.nextCursor;
  } while (cursor);
  return rows;
}

interface StoredEvent {
  type: string;
  data: Record<string, unknown>;
  createdAt: string;
}

describe('fair share between companies over NATS JetStream with two instances', () => {
  it("answers a quiet company's customers while another company's flood waits, and leaves no message without a recorded outcome", async () => {
    const noisy = await tenant('Noisy');
    const quiet = await tenant('Quiet');
    const started = Date.now();

    // The flood: each message from a new customer (a conversation of its own), over both instances.
    await pool(NOISY, FLOOD_PARALLELISM, (i) => postMessage(noisy, `noisy-${i}`, i));
    const floodPosted = Date.now();
    // Once every job of the flood is in a processor's hands (none left in the bus), its order is the schedulers'
    // alone: the quiet company writes then, so the upstream pipeline's pace (webhooks, reactors) on a busy
    // machine cannot make its messages look served late, nor early.
    await eventually(async () => expect(await replyJobs()).toEqual({ published: NOISY, undelivered: 0 }), 60_000, 100);

    const quietPostedAt = new Map<string, number>();
    const quietWrote = Date.now();
    await Promise.all(
      Array.from({ length: QUIET }, async (_, i) => {
        quietPostedAt.set(`quiet-${i}`, Date.now());
        await postMessage(quiet, `quiet-${i}`, i);
      }),
    );
    const quietReplies = await eventually(
      () => {
        const got = replies().filter((r) => isQuiet(r.clientId));
        expect(new Set(got.map((r) => r.clientId)).size).toBe(QUIET);
        return got;
      },
      30_000,
      50,
    );
    const lastQuietReplyAt = Math.max(...quietReplies.map((r) => r.at));

    // Then everything settles: every noisy message answered or handed to people.
    const needsHuman = async (t: Tenant) => (await t.company.call('GET', '/api/conversations/views')).json().views.needs_human.count as number;
    await eventually(
      async () => {
        const answered = new Set(replies().filter((r) => isNoisy(r.clientId)).map((r) => r.clientId)).size;
        expect(answered + (await needsHuman(noisy))).toBe(NOISY);
      },
      60_000,
      250,
    );
    // A little longer, for anything that would still be sent twice.
    await new Promise((r) => setTimeout(r, 1000));
    const settled = Date.now();

    // --- Exactly one recorded outcome per message ---
    const all = replies();
    const postsPerClient = new Map<string, number>();
    for (const r of all) postsPerClient.set(r.clientId, (postsPerClient.get(r.clientId) ?? 0) + 1);
    for (const [clientId, posts] of postsPerClient) expect(posts, `replies sent to ${clientId}`).toBe(1);

    /** When each message handed to people was, by client id (the MessagesUnanswered event's time). */
    const handedOffAt = new Map<string, number>();
    for (const [t, prefix, count] of [
      [noisy, 'noisy-', NOISY],
      [quiet, 'quiet-', QUIET],
    ] as const) {
      const rows = await conversationsOf(t);
      expect(rows).toHaveLength(count);
      expect(new Set(rows.map((c) => String(c.customer.clientId)))).toEqual(new Set(Array.from({ length: count }, (_, i) => `${prefix}${i}`)));
      await pool(rows.length, 8, async (i) => {
        const row = rows[i]!;
        const clientId = String(row.customer.clientId);
        const res = await t.company.call('GET', `/api/conversations/${row.id}/events`);
        expect(res.statusCode).toBe(200);
        const events = (res.json() as { events: StoredEvent[] }).events;
        const of = (type: string) => events.filter((e) => e.type === type);
        expect(of('MessageReceived'), clientId).toHaveLength(1);
        const unanswered = of('MessagesUnanswered');
        if (postsPerClient.get(clientId) === 1) {
          // Answered: one reply, and never handed off.
          expect(of('AgentReplied'), clientId).toHaveLength(1);
          expect(of('MessageDelivered'), clientId).toHaveLength(1);
          expect(unanswered, clientId).toHaveLength(0);
          expect(row.unansweredReason, clientId).toBeNull();
          expect(row.handoff, clientId).toBeNull();
        } else {
          // Not answered: handed to people, saying why.
          expect(of('AgentReplied'), clientId).toHaveLength(0);
          expect(unanswered, clientId).toHaveLength(1);
          expect(String(unanswered[0]!.data.reason), clientId).toMatch(/^AI backlog/);
          expect(row.unansweredReason, clientId).toMatch(/^AI backlog/);
          expect(row.handoff, clientId).toMatchObject({ reason: 'ai_unanswered', detail: expect.stringMatching(/^AI backlog/) });
          handedOffAt.set(clientId, Date.parse(unanswered[0]!.createdAt));
        }
      });
    }
    const noisyReplies = all.filter((r) => isNoisy(r.clientId));
    // The quiet company lost nothing; of the flood, what its processors could not hold went to people.
    expect([...handedOffAt.keys()].filter(isQuiet)).toEqual([]);
    expect(handedOffAt.size).toBeGreaterThan(0);
    expect(noisyReplies.length + handedOffAt.size).toBe(NOISY);

    // --- Fairness, counted in noisy messages rather than in seconds ---
    /** Noisy messages neither answered nor handed to people at `t`. */
    const noisyOpenAt = (t: number) => NOISY - noisyReplies.filter((r) => r.at <= t).length - [...handedOffAt.values()].filter((at) => at <= t).length;
    const backlog = noisyOpenAt(quietWrote);
    const noisyAnsweredMeanwhile = noisyReplies.filter((r) => r.at > quietWrote && r.at <= lastQuietReplyAt).length;
    const latencies = quietReplies.map((r) => r.at - quietPostedAt.get(r.clientId)!);
    const lastNoisyReplyAt = Math.max(...noisyReplies.map((r) => r.at));
    const summary = JSON.stringify({
      floodPostMs: floodPosted - started,
      inProcessorsMs: quietWrote - floodPosted,
      noisyAnswered: noisyReplies.length,
      noisyHandedOff: handedOffAt.size,
      backlog,
      noisyAnsweredMeanwhile,
      noisyOpenAtLastQuiet: noisyOpenAt(lastQuietReplyAt),
      quietLatencyMs: latencies,
      noisyDrainMs: lastNoisyReplyAt - quietWrote,
      settleMs: settled - started,
    });
    // When Quiet wrote, a large backlog of Noisy's was waiting in the processors (their queues were full).
    expect(backlog, summary).toBeGreaterThanOrEqual(CAPACITY);
    // Every quiet customer was answered before even half of that backlog was (in arrival order: after all of it).
    expect(noisyAnsweredMeanwhile, summary).toBeLessThan(backlog / 2);
    expect(noisyOpenAt(lastQuietReplyAt), summary).toBeGreaterThan(backlog / 2);
    // Each quiet reply came far sooner than the flood took to drain (and within a generous absolute bound).
    for (const latency of latencies) {
      expect(latency, summary).toBeLessThan((lastNoisyReplyAt - quietWrote) / 2);
      expect(latency, summary).toBeLessThan(10_000);
    }
  }, 150_000);
});
