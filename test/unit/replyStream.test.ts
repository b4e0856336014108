import { describe, expect, it } from 'vitest';
import { parsePush } from '../../src/http/webchatHub.js';
import type { Bus } from '../../src/ports/bus.js';
import { parseConversationNews, WEBCHAT_DELTA_MAX_CHARS } from '../../src/ports/webchatPush.js';
import { createReplyStream } from '../../src/workers/replies/replyGeneration.js';

const silent = { info() {}, warn() {}, error() {}, debug() {}, child() { return silent; } } as never;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function recordingBus(fail = false) {
  const sent: { subject: string; data: any; at: number }[] = [];
  const bus = {
    broadcast: async (subject: string, data: unknown) => {
      if (fail) throw new Error('bus down');
      sent.push({ subject, data, at: Date.now() });
    },
  } as unknown as Bus;
  return { bus, sent };
}

const stream = (bus: Bus, extra: { maxChars?: number; intervalMs?: number } = {}) =>
  createReplyStream({ bus, subject: 'webchat.c1', replyId: 'r1', logger: silent, ...extra });

describe('reply stream (web chat deltas)', () => {
  it('coalesces fragments: one push per interval, never one per token, offsets continuous, leading whitespace dropped', async () => {
    const { bus, sent } = recordingBus();
    const s = stream(bus, { intervalMs: 50 });
    s.push('  \n', 0);
    for (let i = 0; i < 200; i++) s.push('ab', 0);
    await sleep(80);
    for (let i = 0; i < 100; i++) s.push('cd', 0);
    await s.finish();
    expect(sent.length).toBe(2);
    expect(sent.map((p) => p.data)).toEqual([
      { type: 'delta', id: 'r1', offset: 0, text: 'ab'.repeat(200) },
      { type: 'delta', id: 'r1', offset: 400, text: 'cd'.repeat(100) },
    ]);
    expect(sent.every((p) => p.subject === 'webchat.c1' && parsePush(p.data) !== null)).toBe(true);
    // Nothing after finish.
    s.push('late', 0);
    await sleep(80);
    expect(sent.length).toBe(2);
  });

  it("names the user a verified conversation belongs to on each piece, so that only that user's sockets receive it", async () => {
    const { bus, sent } = recordingBus();
    const s = createReplyStream({ bus, subject: 'webchat.c1', verifiedUserId: 'u-ann', replyId: 'r1', logger: silent });
    s.push('Your order shipped', 0);
    await s.finish();
    expect(sent.map((p) => p.data)).toEqual([{ type: 'delta', id: 'r1', offset: 0, text: 'Your order shipped', verifiedUserId: 'u-ann' }]);
    expect(parseConversationNews(sent[0]!.data)).toEqual({ push: { type: 'delta', id: 'r1', offset: 0, text: 'Your order shipped' }, verifiedUserId: 'u-ann' });
  });

  it('bounds each push and the whole stream', async () => {
    const { bus, sent } = recordingBus();
    const s = stream(bus, { maxChars: 5000 });
    s.push('x'.repeat(4500), 0);
    s.push('y'.repeat(4500), 0);
    await s.finish();
    expect(sent.map((p) => p.data.text.length)).toEqual([WEBCHAT_DELTA_MAX_CHARS, WEBCHAT_DELTA_MAX_CHARS, 1000]);
    expect(sent.map((p) => p.data.offset)).toEqual([0, 2000, 4000]);
    // The socket side refuses a piece bigger than the bound.
    expect(parsePush({ type: 'delta', id: 'r1', offset: 0, text: 'x'.repeat(WEBCHAT_DELTA_MAX_CHARS + 1) })).toBeNull();
  });

  it('a new attempt starts over at offset 0 and drops what the failed one had not sent yet', async () => {
    const { bus, sent } = recordingBus();
    const s = stream(bus, { intervalMs: 20 });
    s.push('First try', 0);
    await sleep(40);
    s.push(' broke of', 0);
    s.push('Second', 1);
    s.push(' try', 1);
    await s.finish();
    expect(sent.map((p) => [p.data.offset, p.data.text])).toEqual([
      [0, 'First try'],
      [0, 'Second try'],
    ]);
  });

  it('cancel sends nothing more; a bus that fails never fails the reply', async () => {
    const { bus, sent } = recordingBus();
    const s = stream(bus);
    s.push('abc', 0);
    await s.cancel();
    await sleep(80);
    expect(sent).toEqual([]);
    const failing = stream(recordingBus(true).bus);
    failing.push('abc', 0);
    await expect(failing.finish()).resolves.toBeUndefined();
  });
});
