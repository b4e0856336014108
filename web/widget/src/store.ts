/**
 * Persistent widget state in localStorage under `mas-webchat:<service origin>:<integrationId>`:
 * the visitor identity and the outbox of messages not yet acknowledged. Every change is a
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
  outbox: OutboxItem[];
}

export class Store {
  private memory: string | null = null;
  /** Set once localStorage failed; from then on this page keeps its state in memory. */
  private memoryOnly = false;

  constructor(readonly key: string) {}

  private raw(): string | null {
    if (!this.memoryOnly) {
      try {
        return localStorage.getItem(this.key);
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
