/**
 * The Bus on NATS JetStream (chosen by NATS_URL). Service instances connected to the same NATS share the work:
 * instances subscribing with the same durable compete for its messages. Tested against nats-server 2.9+.
 *
 * Subjects: callers use plain port subjects (`reply.generate`; dead letters on `dead.reply.generate`); this
 * adapter maps them into its own namespace, so callers need no prefix:
 * - work-queue subject S → JetStream subject `<prefix>.jobs.S` (hence `dead.S` → `<prefix>.jobs.dead.S`);
 * - broadcast/listen subject S → core NATS subject `<prefix>.bcast.S` (plain pub/sub, nothing stored);
 * - one stream (`streamName`, default `MAS`) holds `<prefix>.jobs.>`: file storage, limits retention with
 *   `max_age` (default 7 days) and `max_bytes` (default 1 GiB; the oldest go first), `duplicate_window` =
 *   `duplicateWindowMs` (default 2 min). Created, or updated when these settings differ, by every
 *   connectNatsBus(). Limits, not work-queue retention: every durable of a subject gets every job (the port's
 *   contract), so a job cannot leave the stream when one durable acks it.
 * - publish sets `Nats-Msg-Id` = `S:<encodeURIComponent(dedupeId)>`: dedupe is per subject, as in the
 *   in-process bus (JetStream dedupes msg ids across the whole stream).
 *
 * Consumers: subscribe(S, {durable: D}) uses the durable pull consumer `D__<S, dots as _>_<hash of S>`
 * (consumer names are unique per stream; the port's durables are per subject), filter `<prefix>.jobs.S`,
 * explicit ack, deliver policy by start sequence: a brand-new durable reads what was published for S in the
 * `newDurableLookbackMs` before it was created (default 15 min: messages published just before the first
 * subscribe() are not lost), never the days of handled jobs the stream still retains. ack_wait = `ackWaitMs` (default 30 s); handlers running longer are kept alive
 * with `working()` every ackWait/3. The consumer's `backoff` (each entry at least ackWait) spaces deliveries
 * that time out (an instance died); handler failures are nak'ed with `redeliveryDelayMs(backoffMs, count)`.
 * A failure of delivery `maxDeliver` publishes a DeadLetter to `dead.S` (dedupeId `D:<dedupeId>`, so repeating
 * it is deduped) and then acks. The server's `max_deliver` is maxDeliver + DEAD_LETTER_GRACE: a delivery
 * beyond maxDeliver (the previous one timed out, or the dead-letter publish failed) is dead-lettered without
 * calling the handler; should those fail too, the server's MAX_DELIVERIES advisory is logged as an error.
 *
 * Each subscription runs a fetch loop that asks the server only for as many messages as it has free
 * `concurrency` slots, so no received message waits unseen while its ack_wait runs out (the few a re-pull after
 * a reconnect may bring beyond that wait in a backlog, kept alive with working()). When a fetch fails
 * (disconnect, server restart, consumer deleted) the loop re-ensures stream and consumer and retries with
 * backoff until stopped; the NATS client itself reconnects forever. stop() cancels the pull, naks what has not
 * started and waits for running handlers; close() stops every subscription, then drains the connection.
 */
import { createHash } from 'node:crypto';
import { connect, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  ReplayPolicy,
  RetentionPolicy,
  StorageType,
  jetstreamManager,
  type Consumer,
  type ConsumerConfig,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  type StreamConfig,
} from '@nats-io/jetstream';
import {
  BusClosedError,
  deadLetterSubject,
  type Bus,
  type BusHandler,
  type BusMessage,
  type BusSubscription,
  type DeadLetter,
  type PublishOptions,
  type SubscribeOptions,
} from '../../ports/bus.js';
import {
  assertValidSubject,
  handlerErrorMessage,
  redeliveryDelayMs,
  resolveSubscribeOptions,
  type ResolvedSubscribeOptions,
} from '../bus/delivery.js';
import type { Logger } from '../../ports/logger.js';

export interface NatsBusOptions {
  /** One URL or a comma-separated list, e.g. `nats://nats-1:4222,nats://nats-2:4222`. */
  servers: string;
  /** JetStream stream holding the job subjects. Default `MAS`. */
  streamName?: string;
  /** First subject token(s) of everything this bus uses. Default `mas`. */
  subjectsPrefix?: string;
  logger: Logger;
  /** JetStream duplicate window (Nats-Msg-Id dedupe). Default 120 000 ms. */
  duplicateWindowMs?: number;
  /** Messages older than this are removed from the stream, handled or not. Default 7 days. */
  maxAgeMs?: number;
  /** The stream's size limit: past it the oldest messages are removed, handled or not. Default 1 GiB. */
  maxBytes?: number;
  /**
   * Where a durable created now starts: this far back (default 15 min), not at the start of the stream, so a
   * new worker or a recreated consumer does not replay days of jobs other durables have handled.
   */
  newDurableLookbackMs?: number;
  /** Consumer ack_wait: how long a delivery may go without ack/nak/working before redelivery. Default 30 000 ms. */
  ackWaitMs?: number;
  /** Stream replicas (set 3 on a NATS cluster). Default 1. */
  replicas?: number;
  /** Connection name shown by the server (`nats server report connections`). */
  name?: string;
  /** How long one pull request waits for messages. Default 10 000 ms (minimum 1 000). */
  fetchExpiresMs?: number;
}

/** Deliveries the server allows beyond maxDeliver, used only to dead-letter (never to call the handler). */
const DEAD_LETTER_GRACE = 3;
/**
 * Unlimited on the server: each subscription already bounds what it holds by its `concurrency`, and a worker
 * that orders jobs itself (the reply queue) takes thousands at once so the stream never stays in FIFO order.
 */
const MAX_ACK_PENDING = -1;
const PUBLISH_ATTEMPTS = 3;

const nanos = (ms: number) => Math.round(ms * 1_000_000);
const encoder = new TextEncoder();

const sleep = (ms: number, signal?: { wake?: () => void }) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    if (signal) {
      signal.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    }
  });

function isApiError(err: unknown, code: number): boolean {
  return err instanceof JetStreamApiError && err.code === code;
}

export function consumerNameFor(subject: string, durable: string): string {
  const hash = createHash('sha256').update(subject).digest('hex').slice(0, 8);
  const readable = subject.replace(/\./g, '_').slice(0, 80);
  return `${durable}__${readable}_${hash}`;
}

export async function connectNatsBus(options: NatsBusOptions): Promise<NatsBus> {
  const prefix = options.subjectsPrefix ?? 'mas';
  assertValidSubject(prefix);
  const log = options.logger.child({ component: 'natsBus' });
  const nc = await connect({
    servers: options.servers.split(',').map((s) => s.trim()).filter(Boolean),
    name: options.name ?? 'messaging-agent-service',
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
  });
  try {
    const jsm = await jetstreamManager(nc);
    const bus = new NatsBus(nc, jsm, jsm.jetstream(), log, {
      streamName: options.streamName ?? 'MAS',
      prefix,
      duplicateWindowMs: options.duplicateWindowMs ?? 120_000,
      maxAgeMs: options.maxAgeMs ?? 7 * 24 * 3_600_000,
      maxBytes: options.maxBytes ?? 1024 ** 3,
      newDurableLookbackMs: options.newDurableLookbackMs ?? 15 * 60_000,
      ackWaitMs: options.ackWaitMs ?? 30_000,
      replicas: options.replicas ?? 1,
      fetchExpiresMs: Math.max(1_000, options.fetchExpiresMs ?? 10_000),
    });
    await bus.ensureStream();
    return bus;
  } catch (err) {
    await nc.close().catch(() => undefined);
    throw err;
  }
}

interface Settings {
  streamName: string;
  prefix: string;
  duplicateWindowMs: number;
  maxAgeMs: number;
  maxBytes: number;
  newDurableLookbackMs: number;
  ackWaitMs: number;
  replicas: number;
  fetchExpiresMs: number;
}

export class NatsBus implements Bus {
  private readonly subscriptions = new Set<PullSubscription>();
  private readonly coreSubs = new Set<Subscription>();
  private connected = true;
  private closed = false;

  /** @internal use connectNatsBus() */
  constructor(
    readonly nc: NatsConnection,
    private readonly jsm: JetStreamManager,
    private readonly js: JetStreamClient,
    private readonly log: Logger,
    readonly settings: Settings,
  ) {
    void this.watchStatus();
  }

  jobSubject(subject: string): string {
    return `${this.settings.prefix}.jobs.${subject}`;
  }

  private broadcastSubject(subject: string): string {
    return `${this.settings.prefix}.bcast.${subject}`;
  }

  async ensureStream(): Promise<void> {
    const { streamName, prefix } = this.settings;
    const wanted = {
      subjects: [`${prefix}.jobs.>`],
      duplicate_window: nanos(this.settings.duplicateWindowMs),
      max_age: nanos(this.settings.maxAgeMs),
      max_bytes: this.settings.maxBytes,
    };
    const create: Partial<StreamConfig> & { name: string } = {
      name: streamName,
      ...wanted,
      storage: StorageType.File,
      retention: RetentionPolicy.Limits,
      discard: DiscardPolicy.Old,
      num_replicas: this.settings.replicas,
      description: 'Messaging Agent Service jobs and dead letters (see src/infrastructure/nats/natsBus.ts)',
    };
    for (let attempt = 1; ; attempt++) {
      try {
        const info = await this.jsm.streams.info(streamName);
        const c = info.config;
        const same =
          c.subjects.length === 1 &&
          c.subjects[0] === wanted.subjects[0] &&
          c.duplicate_window === wanted.duplicate_window &&
          c.max_age === wanted.max_age &&
          c.max_bytes === wanted.max_bytes;
        if (!same) {
          await this.jsm.streams.update(streamName, { ...c, ...wanted });
          this.log.info({ stream: streamName, ...wanted }, 'JetStream stream updated');
        }
        return;
      } catch (err) {
        if (!isApiError(err, JetStreamApiCodes.StreamNotFound) || attempt > 3) throw err;
      }
      try {
        await this.jsm.streams.add(create);
        this.log.info({ stream: streamName }, 'JetStream stream created');
        return;
      } catch (err) {
        // another instance may have created it meanwhile: loop back to info/update
        if (attempt > 3) throw err;
      }
    }
  }

  /** Creates or updates the durable consumer for (subject, durable); returns its name. */
  async ensureConsumer(subject: string, options: ResolvedSubscribeOptions): Promise<string> {
    const { streamName, ackWaitMs } = this.settings;
    const name = consumerNameFor(subject, options.durable);
    const filter = this.jobSubject(subject);
    const update = {
      description: `durable ${options.durable} of ${subject}`,
      ack_wait: nanos(ackWaitMs),
      max_deliver: options.maxDeliver + DEAD_LETTER_GRACE,
      // Applies to deliveries that time out (crashed instance, ack_wait); failures are nak'ed with their delay.
      backoff: options.backoffMs.slice(0, options.maxDeliver).map((ms) => nanos(Math.max(ms, ackWaitMs))),
      max_ack_pending: MAX_ACK_PENDING,
    };
    for (let attempt = 1; ; attempt++) {
      try {
        const info = await this.jsm.consumers.info(streamName, name);
        if (info.config.filter_subject !== filter) {
          throw new Error(`consumer ${name} exists with filter ${String(info.config.filter_subject)}, expected ${filter}`);
        }
        const c = info.config;
        const same =
          // with a backoff the server may report its first entry as ack_wait
          (c.ack_wait === update.ack_wait || c.ack_wait === update.backoff[0]) &&
          c.max_deliver === update.max_deliver &&
          c.max_ack_pending === update.max_ack_pending &&
          JSON.stringify(c.backoff ?? []) === JSON.stringify(update.backoff);
        if (!same) {
          await this.jsm.consumers.update(streamName, name, update);
          this.log.info({ consumer: name, subject, durable: options.durable }, 'JetStream consumer updated');
        }
        return name;
      } catch (err) {
        if (!isApiError(err, JetStreamApiCodes.ConsumerNotFound) || attempt > 3) throw err;
      }
      const config: Partial<ConsumerConfig> = {
        ...update,
        durable_name: name,
        filter_subject: filter,
        ack_policy: AckPolicy.Explicit,
        // Not the whole stream: it keeps handled jobs for max_age (limits retention: every durable of a subject
        // gets every job, so a job cannot leave the stream when one durable acks it). A durable created now
        // starts a look-back before now: enough for jobs published just before their worker first subscribed
        // (a fresh start, a deploy), never days of jobs handled already. By sequence, not by start time:
        // nats-server 2.9 refuses a consumer update that sends its stored start time back ("start time can not
        // be updated"), which the client's update does.
        deliver_policy: DeliverPolicy.StartSequence,
        opt_start_seq: await this.firstSequenceSince(new Date(Date.now() - this.settings.newDurableLookbackMs)),
        replay_policy: ReplayPolicy.Instant,
      };
      try {
        await this.jsm.consumers.add(streamName, config);
        this.log.info({ consumer: name, subject, durable: options.durable }, 'JetStream consumer created');
        return name;
      } catch (err) {
        if (attempt > 3) throw err;
      }
    }
  }

  /**
   * The first stream sequence stored at or after `since`: a binary search over the retained messages (about
   * log2(n) lookups), made only when a durable is created. A sequence no longer stored counts as older.
   */
  async firstSequenceSince(since: Date): Promise<number> {
    const { streamName } = this.settings;
    const { state } = await this.jsm.streams.info(streamName);
    let lo = Math.max(1, state.first_seq);
    let hi = state.last_seq + 1;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      const msg = await this.jsm.streams.getMessage(streamName, { seq: mid }).catch(() => null);
      if (!msg || msg.time < since) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  async getConsumer(name: string): Promise<Consumer> {
    return this.js.consumers.get(this.settings.streamName, name);
  }

  async publish<T>(subject: string, data: T, options: PublishOptions): Promise<void> {
    this.assertOpen();
    assertValidSubject(subject);
    if (!options.dedupeId) throw new RangeError('publish needs a non-empty dedupeId');
    const payload = encoder.encode(JSON.stringify(data ?? null));
    const msgID = `${subject}:${encodeURIComponent(options.dedupeId)}`;
    for (let attempt = 1; ; attempt++) {
      try {
        const ack = await this.js.publish(this.jobSubject(subject), payload, { msgID, retries: 3 });
        if (ack.duplicate) this.log.debug({ subject, dedupeId: options.dedupeId }, 'duplicate publish dropped by JetStream');
        return;
      } catch (err) {
        // Safe to retry: the same Nats-Msg-Id is deduped by the stream.
        if (attempt >= PUBLISH_ATTEMPTS || this.closed) throw err;
        this.log.warn({ err, subject, dedupeId: options.dedupeId, attempt }, 'JetStream publish failed; retrying');
        await sleep(250 * attempt);
      }
    }
  }

  async subscribe<T>(subject: string, options: SubscribeOptions, handler: BusHandler<T>): Promise<BusSubscription> {
    this.assertOpen();
    const resolved = resolveSubscribeOptions(subject, options);
    const name = await this.ensureConsumer(subject, resolved);
    const consumer = await this.getConsumer(name);
    const sub = new PullSubscription(this, subject, name, resolved, handler as BusHandler<unknown>, consumer, this.log);
    this.subscriptions.add(sub);
    sub.start();
    return {
      stop: async () => {
        this.subscriptions.delete(sub);
        await sub.stop();
      },
    };
  }

  async broadcast<T>(subject: string, data: T): Promise<void> {
    this.assertOpen();
    assertValidSubject(subject);
    this.nc.publish(this.broadcastSubject(subject), encoder.encode(JSON.stringify(data ?? null)));
  }

  async listen<T>(subject: string, handler: (data: T) => void): Promise<BusSubscription> {
    this.assertOpen();
    assertValidSubject(subject);
    const sub = this.nc.subscribe(this.broadcastSubject(subject), {
      callback: (err, msg) => {
        if (err) {
          this.log.error({ err, subject }, 'broadcast subscription failed; notifications for it are lost');
          return;
        }
        try {
          handler(msg.json<T>());
        } catch (handlerErr) {
          this.log.error({ err: handlerErr, subject }, 'broadcast listener threw; notification lost for this listener');
        }
      },
    });
    this.coreSubs.add(sub);
    await this.nc.flush(); // the server knows the interest before listen() resolves
    return {
      stop: async () => {
        this.coreSubs.delete(sub);
        sub.unsubscribe();
      },
    };
  }

  isConnected(): boolean {
    return !this.closed && this.connected && !this.nc.isClosed();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const subs = [...this.subscriptions];
    this.subscriptions.clear();
    await Promise.all(subs.map((s) => s.stop()));
    for (const sub of this.coreSubs) sub.unsubscribe();
    this.coreSubs.clear();
    if (!this.nc.isClosed()) {
      await this.nc.drain().catch((err: unknown) => {
        this.log.warn({ err }, 'NATS drain failed; closing');
        return this.nc.close();
      });
    }
  }

  /** @internal */
  isClosing(): boolean {
    return this.closed;
  }

  /** @internal publishes the dead letter for a message a durable gives up on. */
  async deadLetter(subject: string, durable: string, letter: DeadLetter): Promise<void> {
    await this.publish(deadLetterSubject(subject), letter, { dedupeId: `${durable}:${letter.dedupeId}` });
  }

  /** @internal subscribes to the server's MAX_DELIVERIES advisory for a consumer (nothing is lost silently). */
  watchMaxDeliveries(consumerName: string, subject: string, durable: string): Subscription {
    const advisory = `$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.${this.settings.streamName}.${consumerName}`;
    return this.nc.subscribe(advisory, {
      callback: (_err, msg) => {
        let detail: unknown;
        try {
          detail = msg.json();
        } catch {
          detail = msg.string();
        }
        this.log.error(
          { subject, durable, consumer: consumerName, advisory: detail },
          'JetStream gave up on a message that could not be dead-lettered; it stays in the stream unhandled',
        );
      },
    });
  }

  private async watchStatus(): Promise<void> {
    for await (const status of this.nc.status()) {
      switch (status.type) {
        case 'disconnect':
          this.connected = false;
          this.log.warn({ server: status.server }, 'NATS disconnected; reconnecting');
          break;
        case 'reconnect':
          this.connected = true;
          this.log.info({ server: status.server }, 'NATS reconnected');
          break;
        case 'error':
          this.log.error({ err: status.error }, 'NATS connection error');
          break;
        default:
          break;
      }
    }
  }

  private assertOpen(): void {
    if (this.closed || this.nc.isClosed()) throw new BusClosedError();
  }
}

/** The fetch loop of one subscribe() call. */
class PullSubscription {
  private stopped = false;
  /** Handlers running (each settles its message). */
  private readonly inFlight = new Set<Promise<void>>();
  /** Received beyond `concurrency` (a re-pull after a reconnect): kept alive with working() until a slot frees. */
  private readonly backlog: { msg: JsMsg; keepAlive: NodeJS.Timeout }[] = [];
  private current: ConsumerMessages | undefined;
  private loop: Promise<void> | undefined;
  private slotFreed: (() => void) | undefined;
  private readonly sleeper: { wake?: () => void } = {};
  private readonly advisory: Subscription;
  private readonly log: Logger;

  constructor(
    private readonly bus: NatsBus,
    private readonly subject: string,
    private readonly consumerName: string,
    private readonly options: ResolvedSubscribeOptions,
    private readonly handler: BusHandler<unknown>,
    private consumer: Consumer,
    log: Logger,
  ) {
    this.log = log.child({ subject, durable: options.durable });
    this.advisory = bus.watchMaxDeliveries(consumerName, subject, options.durable);
  }

  start(): void {
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    if (!this.stopped) {
      this.stopped = true;
      this.advisory.unsubscribe();
      this.slotFreed?.();
      this.sleeper.wake?.();
      void this.current?.close();
      // not started yet: let another instance have them now
      for (const { msg, keepAlive } of this.backlog.splice(0)) {
        clearInterval(keepAlive);
        this.settle(msg, 'nak');
      }
    }
    await this.loop;
    await Promise.allSettled([...this.inFlight]);
  }

  private freeSlots(): number {
    return this.options.concurrency - this.inFlight.size - this.backlog.length;
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      if (this.freeSlots() <= 0) {
        await new Promise<void>((resolve) => (this.slotFreed = resolve));
        this.slotFreed = undefined;
        continue;
      }
      try {
        const batch = await this.consumer.fetch({
          max_messages: this.freeSlots(),
          expires: this.bus.settings.fetchExpiresMs,
        });
        this.current = batch;
        if (this.stopped) void batch.close();
        for await (const msg of batch) {
          if (this.stopped) {
            this.settle(msg, 'nak'); // stopped while it was on its way: let another instance have it now
            continue;
          }
          failures = 0;
          this.dispatch(msg);
        }
      } catch (err) {
        if (this.stopped) break;
        if (this.bus.nc.isClosed()) {
          this.log.error({ err }, 'NATS connection closed: subscription ended');
          break;
        }
        failures++;
        const delay = Math.min(30_000, 200 * 2 ** Math.min(failures, 8));
        this.log.warn({ err, failures, retryInMs: delay }, 'JetStream fetch failed; retrying');
        await sleep(delay, this.sleeper);
        if (!this.stopped) await this.reattach();
      } finally {
        this.current = undefined;
      }
    }
  }

  /** After a failure: the consumer (or stream) may be gone, e.g. a server that lost its state. */
  private async reattach(): Promise<void> {
    try {
      await this.bus.ensureStream();
      await this.bus.ensureConsumer(this.subject, this.options);
      this.consumer = await this.bus.getConsumer(this.consumerName);
    } catch (err) {
      this.log.warn({ err }, 'could not re-ensure the JetStream consumer yet');
    }
  }

  private keepAlive(msg: JsMsg): NodeJS.Timeout {
    const every = Math.max(100, Math.floor(this.bus.settings.ackWaitMs / 3));
    return setInterval(() => this.settle(msg, 'working'), every);
  }

  private dispatch(msg: JsMsg): void {
    const keepAlive = this.keepAlive(msg);
    if (this.inFlight.size >= this.options.concurrency) {
      this.backlog.push({ msg, keepAlive });
      return;
    }
    this.runHandler(msg, keepAlive);
  }

  private runHandler(msg: JsMsg, keepAlive: NodeJS.Timeout): void {
    const task = this.handle(msg)
      .catch((err: unknown) => {
        this.log.error({ err, seq: msg.seq }, 'unexpected error while settling a message; it will be redelivered');
      })
      .finally(() => clearInterval(keepAlive));
    this.inFlight.add(task);
    void task.finally(() => {
      this.inFlight.delete(task);
      const next = this.stopped ? undefined : this.backlog.shift();
      if (next) this.runHandler(next.msg, next.keepAlive);
      else this.slotFreed?.();
    });
  }

  private async handle(msg: JsMsg): Promise<void> {
    const { maxDeliver, backoffMs, durable } = this.options;
    const deliveryCount = msg.info.deliveryCount;
    const dedupeId = this.dedupeIdOf(msg);
    const context = { dedupeId, deliveryCount, seq: msg.info.streamSequence };
    let data: unknown;
    let failure: unknown;
    /** Dead-letter without (further) retries. */
    let giveUp = false;
    try {
      data = msg.json<unknown>();
    } catch (err) {
      // Not JSON: no handler can use it; dead-letter it at once with the raw text.
      data = msg.string();
      failure = new Error(`payload is not JSON: ${handlerErrorMessage(err)}`);
      giveUp = true;
    }
    if (!giveUp && deliveryCount > maxDeliver) {
      failure = new Error(
        `delivery ${deliveryCount} exceeds maxDeliver ${maxDeliver}: an earlier delivery timed out or its instance stopped`,
      );
      giveUp = true;
    }
    if (!giveUp) {
      const message: BusMessage<unknown> = { subject: this.subject, data, deliveryCount, dedupeId };
      try {
        await this.handler(message);
        this.settle(msg, 'ack');
        return;
      } catch (err) {
        failure = err;
        giveUp = deliveryCount >= maxDeliver;
      }
    }
    if (!giveUp) {
      const delay = redeliveryDelayMs(backoffMs, deliveryCount);
      this.log.warn({ ...context, err: failure, retryInMs: delay }, 'handler failed: message will be redelivered');
      this.settle(msg, 'nak', delay);
      return;
    }
    const letter: DeadLetter = {
      subject: this.subject,
      durable,
      data,
      dedupeId,
      error: handlerErrorMessage(failure),
      deliveryCount,
      deadAt: new Date().toISOString(),
    };
    try {
      await this.bus.deadLetter(this.subject, durable, letter);
    } catch (err) {
      const delay = redeliveryDelayMs(backoffMs, deliveryCount);
      this.log.error({ ...context, err, retryInMs: delay }, 'dead-letter publish failed: message will be redelivered');
      this.settle(msg, 'nak', delay);
      return;
    }
    this.log.error({ ...context, err: failure }, 'message dead-lettered');
    this.settle(msg, 'ack');
  }

  /** The publisher's dedupeId, from `Nats-Msg-Id` = `<subject>:<encodeURIComponent(dedupeId)>`. */
  private dedupeIdOf(msg: JsMsg): string {
    const msgId = msg.headers?.get('Nats-Msg-Id') ?? '';
    const idPrefix = `${this.subject}:`;
    if (msgId.startsWith(idPrefix)) {
      try {
        return decodeURIComponent(msgId.slice(idPrefix.length));
      } catch {
        return msgId.slice(idPrefix.length);
      }
    }
    return msgId || `seq-${msg.info.streamSequence}`; // published by something other than this bus
  }

  /** ack/nak/working never throw (the connection may be closed); the server redelivers after ack_wait then. */
  private settle(msg: JsMsg, action: 'ack' | 'nak' | 'working', delayMs?: number): void {
    try {
      if (action === 'ack') msg.ack();
      else if (action === 'nak') msg.nak(delayMs);
      else msg.working();
    } catch (err) {
      this.log.warn({ err, action, seq: msg.seq }, 'could not settle message; the server will redeliver it after ack_wait');
    }
  }
}
