import type { EventStore, RecordedEvent } from '../ports/eventStore.js';
import type { Logger } from '../ports/logger.js';
import type { ReadStore } from '../ports/readStore.js';
import { webhookLogEvents } from '../domain/platformWebhooks/events.js';
import { CONVERSATIONS, type ConversationDoc } from '../projections/conversations/conversationsProjection.js';
import { createEventConsumer, type EventConsumer } from './eventConsumer.js';
import { isEventOf } from './eventOfType.js';

/**
 * Live updates for the dashboard, the processor behind `GET /api/events/stream` (src/http/routes/liveEvents.ts).
 *
 * A processor on the instance's shared event consumer (eventConsumer.ts) follows the `conversation-*` and
 * `webhooklog-*` streams from the head at start-up. For each batch it waits until the projections have passed the batch's last
 * position (so the dashboard's refetch sees the change), then tells the connected clients of each affected
 * company which conversations changed and which webhook deliveries were logged. Nothing is replayed: a client
 * that reconnects refetches its lists.
 */

const CONVERSATION_PREFIX = 'conversation-';
const WEBHOOK_LOG_PREFIX = 'webhooklog-';

export type LiveChange =
  | { kind: 'conversation'; conversationId: string }
  | { kind: 'webhookLog'; logId: string; integrationId: number; conversationId: string | null };
export type LiveListener = (change: LiveChange) => void;

/** What a stored event tells the dashboard (null: nothing). */
function changeOf(event: RecordedEvent): LiveChange | null {
  // A delivery log entry is a webhook-log change wherever it is stored; any other event of a conversation's stream
  // is a conversation change.
  if (isEventOf(webhookLogEvents, 'WebhookDeliveryLogged', event)) {
    const d = event.data;
    return { kind: 'webhookLog', logId: d.logId, integrationId: d.integrationId, conversationId: d.conversationId };
  }
  if (event.stream.startsWith(CONVERSATION_PREFIX)) return { kind: 'conversation', conversationId: event.stream.slice(CONVERSATION_PREFIX.length) };
  return null;
}
const changeKey = (c: LiveChange) => (c.kind === 'conversation' ? `c:${c.conversationId}` : `w:${c.logId}`);

export interface LiveEvents {
  /** Calls `listener` for every change of one of the company's conversations and webhook logs; returns the unsubscribe. */
  listen(companyId: string, listener: LiveListener): () => void;
  /** Connected listeners (of one company, or of all). */
  listeners(companyId?: string): number;
  stop(): Promise<void>;
}

export interface StartLiveEventsOptions {
  eventStore: EventStore;
  readStore: ReadStore;
  /** Resolves once every projection has applied the event at `position`. */
  waitForProjections(position: bigint): Promise<void>;
  logger: Logger;
  /** The consumer it follows the log on; by default one of its own. */
  consumer?: EventConsumer;
  /** Events per read of its own consumer. Default 200. */
  batchSize?: number;
}

export async function startLiveEvents(options: StartLiveEventsOptions): Promise<LiveEvents> {
  const { eventStore, logger } = options;
  const registry = listenerRegistry();
  let stopped = false;
  // Start at the head: only changes from now on are news; a client's first fetch covers the past.
  let position = await eventStore.headPosition();
  const notify = batchNotifier(options, registry);

  const handle = async (events: RecordedEvent[]) => {
    const last = events.at(-1)!.position;
    if (registry.total() === 0 || stopped) return;
    try {
      await options.waitForProjections(last);
    } catch (err) {
      // Still notify: the refetch may show slightly older data, but the client hears about the change.
      if (!stopped) logger.warn({ err, position: String(last) }, 'live events: projections lagging; notifying anyway');
    }
    await notify(events);
  };

  const ownConsumer = options.consumer ? null : createEventConsumer({ eventStore, logger, batchSize: options.batchSize ?? 200 });
  const attached = (options.consumer ?? ownConsumer!).attach({
    name: 'live-events',
    filter: { streamPrefixes: [CONVERSATION_PREFIX, WEBHOOK_LOG_PREFIX] },
    resumeAfter: async () => position,
    handle: async (events, through) => {
      if (events.length > 0) await handle(events);
      position = through;
    },
    retryDelay: (err, attempt) => {
      const delay = Math.min(30_000, 250 * 2 ** (attempt - 1));
      logger.error({ err, retryInMs: delay }, 'live events could not follow the event store; retrying');
      return delay;
    },
  });

  return {
    listen: registry.listen,
    listeners: registry.listeners,
    async stop() {
      stopped = true;
      await attached.detach();
      await ownConsumer?.stop();
    },
  };
}

type ListenerRegistry = ReturnType<typeof listenerRegistry>;

/** The connected listeners, per company. */
function listenerRegistry() {
  const byCompany = new Map<string, Set<LiveListener>>();
  let total = 0;
  return {
    byCompany: (companyId: string): ReadonlySet<LiveListener> | undefined => byCompany.get(companyId),
    total: () => total,
    listen(companyId: string, listener: LiveListener): () => void {
      let set = byCompany.get(companyId);
      if (!set) byCompany.set(companyId, (set = new Set()));
      set.add(listener);
      total++;
      let done = false;
      return () => {
        if (done) return;
        done = true;
        total--;
        set.delete(listener);
        if (set.size === 0 && byCompany.get(companyId) === set) byCompany.delete(companyId);
      };
    },
    listeners(companyId?: string): number {
      return companyId === undefined ? total : (byCompany.get(companyId)?.size ?? 0);
    },
  };
}

/** Tells each listening company's clients, once per batch, which of its conversations and webhook logs changed. */
function batchNotifier(options: Pick<StartLiveEventsOptions, 'readStore' | 'logger'>, registry: ListenerRegistry) {
  const { readStore, logger } = options;
  const companyOf = async (event: RecordedEvent): Promise<string | null> => {
    if (event.metadata.companyId) return event.metadata.companyId;
    const doc = await readStore.get<ConversationDoc>(CONVERSATIONS, event.stream.slice(CONVERSATION_PREFIX.length)).catch(() => null);
    return doc?.companyId ?? null;
  };
  return async (events: RecordedEvent[]) => {
    const changed = new Map<string, Map<string, LiveChange>>();
    for (const event of events) {
      const change = changeOf(event);
      if (!change) continue;
      const companyId = await companyOf(event);
      if (!companyId || !registry.byCompany(companyId)) continue;
      let changes = changed.get(companyId);
      if (!changes) changed.set(companyId, (changes = new Map()));
      changes.set(changeKey(change), change);
    }
    for (const [companyId, changes] of changed) {
      for (const listener of [...(registry.byCompany(companyId) ?? [])]) {
        for (const change of changes.values()) {
          try {
            listener(change);
          } catch (err) {
            logger.warn({ err }, 'live events: a listener failed');
          }
        }
      }
    }
  };
}
