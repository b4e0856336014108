import type { BusSubscription } from '../ports/bus.js';
import type { Logger } from '../ports/logger.js';
import { parseConversationNews, type ConversationNews, type WebchatPush } from '../ports/webchatPush.js';

/** Gets each push of the conversation with whom the conversation was verified for, and its verification notices. */
export type ConversationListener = (news: ConversationNews) => void;

/** Fan-out notifications of one conversation (the bus subject per conversation), from any server instance. */
export type ListenToConversation = (conversationId: string, handler: (data: unknown) => void) => Promise<BusSubscription>;

/** Accepts only the documented push shapes; anything else on the subject is dropped. */
export function parsePush(data: unknown): WebchatPush | null {
  return parseConversationNews(data)?.push ?? null;
}

interface Entry {
  listeners: Set<ConversationListener>;
  subscription: Promise<BusSubscription>;
}

export interface WebchatHub {
  /**
   * Starts receiving the conversation's pushes; resolves once the bus knows the interest (so a push produced
   * after that is never missed) with the function that stops them.
   */
  join(conversationId: string, listener: ConversationListener): Promise<() => void>;
  /** Conversations listened to on this instance. */
  size(): number;
  stop(): Promise<void>;
}

/**
 * One bus listener per conversation per instance, shared by the sockets of that conversation (a visitor
 * with two tabs open), stopped when the last socket leaves.
 */
export function createWebchatHub(listen: ListenToConversation, logger: Logger): WebchatHub {
  const entries = new Map<string, Entry>();
  const stopping = new Set<Promise<void>>();

  const stopSubscription = (conversationId: string, entry: Entry) => {
    const p = entry.subscription
      .then((s) => s.stop())
      .catch((err) => logger.warn({ err, conversationId }, 'stopping a web chat conversation listener failed'))
      .finally(() => stopping.delete(p));
    stopping.add(p);
  };

  return {
    async join(conversationId, listener) {
      let entry = entries.get(conversationId);
      if (!entry) {
        const listeners = new Set<ConversationListener>();
        const subscription = listen(conversationId, (data) => {
          const news = parseConversationNews(data);
          if (!news) {
            logger.warn({ conversationId }, 'web chat notification with an unknown shape dropped');
            return;
          }
          for (const l of listeners) {
            try {
              l(news);
            } catch (err) {
              logger.error({ err, conversationId }, 'web chat listener threw; the push is lost for that socket');
            }
          }
        });
        const created: Entry = { listeners, subscription };
        created.subscription.catch(() => {
          if (entries.get(conversationId) === created) entries.delete(conversationId);
        });
        entries.set(conversationId, created);
        entry = created;
      }
      const joined = entry;
      joined.listeners.add(listener);
      try {
        await joined.subscription;
      } catch (err) {
        joined.listeners.delete(listener);
        throw err;
      }
      let left = false;
      return () => {
        if (left) return;
        left = true;
        joined.listeners.delete(listener);
        if (joined.listeners.size === 0 && entries.get(conversationId) === joined) {
          entries.delete(conversationId);
          stopSubscription(conversationId, joined);
        }
      };
    },
    size: () => entries.size,
    async stop() {
      for (const [conversationId, entry] of entries) {
        entry.listeners.clear();
        stopSubscription(conversationId, entry);
      }
      entries.clear();
      await Promise.all([...stopping]);
    },
  };
}
