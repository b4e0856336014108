/**
 * From a customer's message to its AI reply reaching the channel: the reply worker notes when the messages a
 * reply answers arrived, the send worker reports the time once the channel accepted it. Both run in the same
 * process; a reply sent by another instance (NATS) is not timed. Bounded: the oldest notes go first.
 */
export interface ReplyLatency {
  replied(replyId: string, sinceMs: number): void;
  /** Seconds since the first message it answers, or null for a message this process did not write. */
  delivered(messageId: string, nowMs: number): number | null;
}

export function createReplyLatency(max = 20_000): ReplyLatency {
  const since = new Map<string, number>();
  return {
    replied(replyId, sinceMs) {
      since.set(replyId, sinceMs);
      if (since.size > max) since.delete(since.keys().next().value!);
    },
    delivered(messageId, nowMs) {
      const at = since.get(messageId);
      if (at === undefined) return null;
      since.delete(messageId);
      return Math.max(0, (nowMs - at) / 1000);
    },
  };
}
