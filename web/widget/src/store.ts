/**
 * Persistent widget state in localStorage under `mas-webchat:<service origin>:<integrationId>:<who>`, where
 * `<who>` is who the page says the visitor is (`storageIdentity`): the visitor identity and the outbox of
 * messages not yet acknowledged. One slot per identity, because the service cuts a tab off a conversation once
 * it is verified for a user it is not signed as; with one shared slot that tab's new anonymous token replaced
 * the signed user's, and her next page load continued the wrong conversation. Every change is a
 * read-modify-write of the stored value so that several tabs of the same site don't overwrite
 * each other's pending messages. Falls back to memory when localStorage is unavailable
 * (disabled storage, sandboxed iframes, some private modes).
 */

export interface OutboxItem {
  clientMessageId: string;
  text: string;
  createdAt: string;
}

export interface Persisted {
  visitorId?: string;
  visitorToken?: string;
  /** The integration's greeting as last received, so a reopened page shows it before it is connected. */
  greeting?: string;
  /** The pre-chat form: answered (its answers, sent again on each connect) or skipped; absent: not asked yet. */
  prechat?: { name?: string; email?: string } | 'skipped';
  outbox: OutboxItem[];
}

export class Store {
  private memory: string | null = null;
  /** Set once localStorage failed; from then on this page keeps its state in memory. */
  private memoryOnly = false;

  /**
   * `legacyKey`: the single slot of earlier versions, read while this one is still empty and removed once this
   * one is written (the state moves over). Given only to an anonymous page: a token found there may belong to
   * anyone who used this browser, and the service never shows a signed user's history to an unsigned page.
   */
  constructor(
    readonly key: string,
    private readonly legacyKey?: string,
  ) {}

  private raw(): string | null {
    if (!this.memoryOnly) {
      try {
        const own = localStorage.getItem(this.key);
        return own === null && this.legacyKey ? localStorage.getItem(this.legacyKey) : own;
      } catch {
        this.memoryOnly = true;
      }
    }
    return this.memory;
  }

  read(): Persisted {
    const out: Persisted = { outbox: [] };
    let v: unknown;
    try {
      v = JSON.parse(this.raw() ?? '{}');
    } catch {
      return out;
    }
    if (typeof v !== 'object' || v === null) return out;
    const o = v as Record<string, unknown>;
    if (typeof o.visitorId === 'string') out.visitorId = o.visitorId;
    if (typeof o.visitorToken === 'string') out.visitorToken = o.visitorToken;
    if (typeof o.greeting === 'string') out.greeting = o.greeting;
    if (o.prechat === 'skipped') out.prechat = 'skipped';
    else if (typeof o.prechat === 'object' && o.prechat !== null) {
      const pc = o.prechat as Record<string, unknown>;
      out.prechat = {
        ...(typeof pc.name === 'string' && pc.name ? { name: pc.name } : {}),
        ...(typeof pc.email === 'string' && pc.email ? { email: pc.email } : {}),
      };
    }
    if (Array.isArray(o.outbox)) {
      for (const i of o.outbox as Array<Partial<OutboxItem> | null>) {
        if (i && typeof i.clientMessageId === 'string' && typeof i.text === 'string') {
          out.outbox.push({ clientMessageId: i.clientMessageId, text: i.text, createdAt: String(i.createdAt ?? '') });
        }
      }
    }
    return out;
  }

  private update(fn: (p: Persisted) => void): void {
    const p = this.read();
    fn(p);
    const s = JSON.stringify(p);
    this.memory = s;
    if (this.memoryOnly) return;
    try {
      localStorage.setItem(this.key, s);
      if (this.legacyKey) localStorage.removeItem(this.legacyKey);
    } catch {
      // quota or disabled: the memory copy keeps this page working
      this.memoryOnly = true;
    }
  }

  setIdentity(visitorId: string, visitorToken: string): void {
    this.update((p) => {
      p.visitorId = visitorId;
      p.visitorToken = visitorToken;
    });
  }

  setGreeting(greeting: string | undefined): void {
    this.update((p) => {
      if (greeting) p.greeting = greeting;
      else delete p.greeting;
    });
  }

  setPrechat(prechat: { name?: string; email?: string } | 'skipped'): void {
    this.update((p) => {
      p.prechat = prechat;
    });
  }

  clearIdentity(): void {
    this.update((p) => {
      delete p.visitorId;
      delete p.visitorToken;
    });
  }

  outbox(): OutboxItem[] {
    return this.read().outbox;
  }

  add(item: OutboxItem): void {
    this.update((p) => {
      if (!p.outbox.some((i) => i.clientMessageId === item.clientMessageId)) p.outbox.push(item);
    });
  }

  remove(clientMessageId: string): void {
    this.update((p) => {
      p.outbox = p.outbox.filter((i) => i.clientMessageId !== clientMessageId);
    });
  }
}

/**
 * The `<who>` of the storage key: `anonymous`, or `user-` and the SHA-256 of the signed user id, so that a key
 * left in the browser after a sign-out does not spell out who used it. Keyed by the user id alone, not the
 * signature: a user whose email changed keeps her conversation (the service follows the new email).
 */
export function storageIdentity(userId: string | undefined): string {
  return userId === undefined ? 'anonymous' : `user-${sha256Hex(userId)}`;
}

const K = Uint32Array.from(
  '428a2f98 71374491 b5c0fbcf e9b5dba5 3956c25b 59f111f1 923f82a4 ab1c5ed5 d807aa98 12835b01 243185be 550c7dc3 72be5d74 80deb1fe 9bdc06a7 c19bf174 e49b69c1 efbe4786 0fc19dc6 240ca1cc 2de92c6f 4a7484aa 5cb0a9dc 76f988da 983e5152 a831c66d b00327c8 bf597fc7 c6e00bf3 d5a79147 06ca6351 14292967 27b70a85 2e1b2138 4d2c6dfc 53380d13 650a7354 766a0abb 81c2c92e 92722c85 a2bfe8a1 a81a664b c24b8b70 c76c51a3 d192e819 d6990624 f40e3585 106aa070 19a4c116 1e376c08 2748774c 34b0bcb5 391c0cb3 4ed8aa4a 5b9cca4f 682e6ff3 748f82ee 78a5636f 84c87814 8cc70208 90befffa a4506ceb bef9a3f7 c67178f2'
    .split(' ')
    .map((h) => parseInt(h, 16)),
);

/** SHA-256 of the UTF-8 text, in hex; synchronous because crypto.subtle is async and missing outside secure contexts. */
export function sha256Hex(text: string): string {
  const data = new TextEncoder().encode(text);
  const bytes = new Uint8Array(((data.length + 9 + 63) >> 6) << 6);
  bytes.set(data);
  bytes[data.length] = 0x80;
  const view = new DataView(bytes.buffer);
  view.setUint32(bytes.length - 4, data.length * 8);
  view.setUint32(bytes.length - 8, Math.floor(data.length / 0x20000000));
  const h = Uint32Array.from([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const w = new Uint32Array(64);
  const rotr = (x: number, n: number) => (x >>> n) | (x << (32 - n));
  for (let off = 0; off < bytes.length; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(off + i * 4);
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15]!;
      const b = w[i - 2]!;
      w[i] = w[i - 16]! + (rotr(a, 7) ^ rotr(a, 18) ^ (a >>> 3)) + w[i - 7]! + (rotr(b, 17) ^ rotr(b, 19) ^ (b >>> 10));
    }
    let [a, b, c, d, e, f, g, hh] = Array.from(h);
    for (let i = 0; i < 64; i++) {
      const t1 = (hh! + (rotr(e!, 6) ^ rotr(e!, 11) ^ rotr(e!, 25)) + ((e! & f!) ^ (~e! & g!)) + K[i]! + w[i]!) >>> 0;
      const t2 = ((rotr(a!, 2) ^ rotr(a!, 13) ^ rotr(a!, 22)) + ((a! & b!) ^ (a! & c!) ^ (b! & c!))) >>> 0;
      hh = g;
      g = f;
      f = e;
      e = (d! + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    [a, b, c, d, e, f, g, hh].forEach((v, i) => (h[i] = h[i]! + v!));
  }
  return Array.from(h, (x) => x.toString(16).padStart(8, '0')).join('');
}

/** RFC 4122 v4 id; crypto.randomUUID only exists in secure contexts, hence the fallbacks. */
export function newId(): string {
  const c = globalThis.crypto;
  if (c && typeof c.randomUUID === 'function') return c.randomUUID();
  const b = new Uint8Array(16);
  if (c && typeof c.getRandomValues === 'function') c.getRandomValues(b);
  else for (let i = 0; i < 16; i++) b[i] = Math.floor(Math.random() * 256);
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
