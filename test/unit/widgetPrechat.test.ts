import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseFrame, prechatProblem } from '../../web/widget/src/protocol.js';
import { Store } from '../../web/widget/src/store.js';
import { parseClientFrame } from '../../src/http/webchatFrames.js';

/** The pre-chat form's rules, the same in the widget and the service, and what the widget remembers of it. */

describe('the pre-chat check', () => {
  it('accepts a name, an email, or both; refuses an email that is not one, a long name, or nothing', () => {
    expect(prechatProblem('Ingrid Berg', '')).toBeNull();
    expect(prechatProblem('', 'ingrid@example.com')).toBeNull();
    expect(prechatProblem('Ingrid', 'ingrid@mail.example.no')).toBeNull();
    expect(prechatProblem('', '')).toMatch(/Skip/);
    expect(prechatProblem('x'.repeat(81), '')).toMatch(/80/);
    for (const bad of ['ingrid', 'ingrid@', '@example.com', 'ingrid@example', 'in grid@example.com', 'a@b..c']) expect(prechatProblem('', bad)).toMatch(/email/);
  });

  it('agrees with the service: what the widget lets through the service accepts, and what it stops the service refuses', () => {
    const cases: Array<[string, string]> = [['Ingrid', ''], ['', 'ingrid@example.com'], ['', 'ingrid@example'], ['', 'in grid@example.com'], ['x'.repeat(81), ''], ['', '']];
    for (const [name, email] of cases) {
      const widgetOk = prechatProblem(name, email) === null;
      const frame = parseClientFrame(JSON.stringify({ type: 'profile', ...(name ? { name } : {}), ...(email ? { email } : {}) }), false);
      expect(frame.type === 'profile', `${name}|${email}`).toBe(widgetOk);
    }
  });

  it('reads prechatForm from ready (absent: off) and profile_saved', () => {
    const ready = { type: 'ready', conversationId: 'c', visitorId: 'v', visitorToken: 't', history: [] };
    expect(parseFrame(JSON.stringify({ ...ready, prechatForm: true }))).toMatchObject({ prechatForm: true });
    expect(parseFrame(JSON.stringify(ready))).not.toHaveProperty('prechatForm');
    expect(parseFrame(JSON.stringify({ type: 'profile_saved', name: 'x' }))).toEqual({ type: 'profile_saved' });
  });
});

describe('what the widget remembers', () => {
  let items: Map<string, string>;
  beforeEach(() => {
    items = new Map();
    (globalThis as { localStorage?: unknown }).localStorage = {
      getItem: (k: string) => items.get(k) ?? null,
      setItem: (k: string, v: string) => void items.set(k, v),
      removeItem: (k: string) => void items.delete(k),
    };
  });
  afterEach(() => {
    delete (globalThis as { localStorage?: unknown }).localStorage;
  });

  it('the answers (sent again on each connect) or the skip, and nothing when never asked', () => {
    const store = new Store('slot');
    expect(store.read().prechat).toBeUndefined();
    store.setPrechat({ name: 'Ingrid', email: 'ingrid@example.com' });
    expect(new Store('slot').read().prechat).toEqual({ name: 'Ingrid', email: 'ingrid@example.com' });
    store.setPrechat('skipped');
    expect(new Store('slot').read().prechat).toBe('skipped');
    items.set('slot', JSON.stringify({ outbox: [], prechat: { name: 42, email: '' } }));
    expect(new Store('slot').read().prechat).toEqual({});
  });
});
