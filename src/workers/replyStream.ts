import type { Bus } from '../ports/bus.js';
import type { Logger } from '../ports/logger.js';
import { WEBCHAT_DELTA_MAX_CHARS, type WebchatPush } from '../ports/webchatPush.js';

/**
 * Forwards a reply being generated to the web chat visitor as `delta` pushes on the conversation's subject.
 * Fragments are coalesced (at most one push per `intervalMs`, never one per token) and bounded (each push
 * at most WEBCHAT_DELTA_MAX_CHARS, the whole stream at most `maxChars`: past that the visitor waits for the
 * final message). A new attempt starts over at offset 0. Best effort: a lost push never fails the reply.
 */
export interface ReplyStream {
  /** One fragment of attempt `attempt`; O(fragment). */
  push(text: string, attempt: number): void;
  /** Sends what is buffered and waits until every push is on the bus (before the final reply is stored). */
  finish(): Promise<void>;
  /** Drops what is buffered and sends nothing more (the answer failed or was dropped). */
  cancel(): Promise<void>;
}

export interface ReplyStreamOptions {
  bus: Bus;
  subject: string;
  /** The id the final reply will have, so the widget replaces the partial with it. */
  replyId: string;
  logger: Logger;
  intervalMs?: number;
  maxChars?: number;
}

export const DELTA_INTERVAL_MS = 50;
export const MAX_STREAMED_CHARS = 32_768;

export function createReplyStream(options: ReplyStreamOptions): ReplyStream {
  const intervalMs = options.intervalMs ?? DELTA_INTERVAL_MS;
  const maxChars = options.maxChars ?? MAX_STREAMED_CHARS;
  let attempt = -1;
  /** Characters of this attempt already handed to the bus. */
  let sent = 0;
  let buffer: string[] = [];
  let buffered = 0;
  /** Leading whitespace is not shown (the final text is trimmed). */
  let started = false;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let chain: Promise<void> = Promise.resolve();

  const publish = (push: WebchatPush) => {
    chain = chain.then(() =>
      options.bus.broadcast(options.subject, push).catch((err) => options.logger.warn({ err, replyId: options.replyId }, 'streamed reply piece lost')),
    );
  };

  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (buffered === 0) return;
    const text = buffer.join('');
    buffer = [];
    buffered = 0;
    for (let at = 0; at < text.length; at += WEBCHAT_DELTA_MAX_CHARS) {
      const piece = text.slice(at, at + WEBCHAT_DELTA_MAX_CHARS);
      publish({ type: 'delta', id: options.replyId, offset: sent, text: piece });
      sent += piece.length;
    }
  };

  return {
    push(fragment, n) {
      if (stopped) return;
      if (n !== attempt) {
        // A retry: what the failed attempt showed is void, the next push starts at offset 0 again.
        attempt = n;
        clearTimeout(timer);
        timer = undefined;
        buffer = [];
        buffered = 0;
        sent = 0;
        started = false;
      }
      let text = fragment;
      if (!started) {
        text = text.trimStart();
        if (text === '') return;
        started = true;
      }
      const room = maxChars - sent - buffered;
      if (room <= 0) return;
      if (text.length > room) text = text.slice(0, room);
      buffer.push(text);
      buffered += text.length;
      timer ??= setTimeout(flush, intervalMs);
    },
    async finish() {
      if (!stopped) flush();
      stopped = true;
      await chain;
    },
    async cancel() {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
      buffer = [];
      await chain;
    },
  };
}
