import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, isIPv4, isIPv6 } from 'node:net';
import type { LookupAddress } from 'node:dns';

/**
 * Keeps the service from being turned into a proxy into its own network: a tenant chooses the
 * platform apiUrl and the LLM base URL, so without this a tenant could make the server call
 * loopback services, the cloud metadata endpoint or anything on the private network. Shared by
 * the platform client and the LLM client (guardedFetch.ts).
 *
 * Two layers, both needed:
 * - `checkPlatformUrl` rejects literal addresses and local names before any connection. Node's
 *   net module skips the `lookup` hook entirely for IP literals, so this static check is the
 *   only guard for `http://127.0.0.1/`-style URLs.
 * - `guardedLookup` runs at connect time for names, so a name that resolves (or is rebound) to
 *   a private address is refused after resolution, on the very address that would be dialled.
 */

export interface UrlPolicy {
  /** Lifts the loopback/private/link-local restrictions (tests, local platforms). */
  allowPrivate: boolean;
  requireHttps: boolean;
}

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

export type AddressVerdict = { allowed: true } | { allowed: false; reason: string };

type Range = { bytes: number[]; prefix: number; label: string };

function v4(cidr: string, label: string): Range {
  const [addr, len] = cidr.split('/') as [string, string];
  return { bytes: addr.split('.').map(Number), prefix: Number(len), label };
}

function v6(cidr: string, label: string): Range {
  const [addr, len] = cidr.split('/') as [string, string];
  return { bytes: parseIPv6(addr)!, prefix: Number(len), label };
}

// Never a sensible destination, whatever allowPrivate says: metadata endpoints hand out cloud
// credentials, and unspecified/multicast/broadcast/reserved addresses are never a real server.
const ALWAYS_BLOCKED_V4: Range[] = [
  v4('169.254.169.254/32', 'cloud metadata address'),
  v4('100.100.100.200/32', 'cloud metadata address'),
  v4('0.0.0.0/8', 'unspecified ("this network") address'),
  v4('224.0.0.0/4', 'multicast address'),
  v4('240.0.0.0/4', 'reserved address'),
];

const PRIVATE_V4: Range[] = [
  v4('127.0.0.0/8', 'loopback address'),
  v4('10.0.0.0/8', 'private address'),
  v4('172.16.0.0/12', 'private address'),
  v4('192.168.0.0/16', 'private address'),
  v4('169.254.0.0/16', 'link-local address'),
  v4('100.64.0.0/10', 'carrier-grade NAT address'),
  v4('192.0.0.0/24', 'IETF protocol assignment address'),
  v4('192.0.2.0/24', 'documentation address'),
  v4('198.51.100.0/24', 'documentation address'),
  v4('203.0.113.0/24', 'documentation address'),
  v4('198.18.0.0/15', 'benchmarking address'),
];

const ALWAYS_BLOCKED_V6: Range[] = [
  v6('::/128', 'unspecified address'),
  v6('fd00:ec2::254/128', 'cloud metadata address'),
  v6('ff00::/8', 'multicast address'),
];

const PRIVATE_V6: Range[] = [
  v6('::1/128', 'loopback address'),
  v6('fc00::/7', 'unique local address'),
  v6('fe80::/10', 'link-local address'),
  v6('fec0::/10', 'site-local address'),
  v6('100::/64', 'discard-only address'),
  v6('2001:db8::/32', 'documentation address'),
  v6('64:ff9b:1::/48', 'local-use NAT64 address'),
  // Teredo scrambles the IPv4 it tunnels to, so its target cannot be checked: refuse outright.
  v6('2001::/32', 'Teredo tunnel address'),
];

// Names that resolve locally (or to metadata) by convention, refused before any DNS is asked.
const LOCAL_NAME_SUFFIXES = ['localhost', 'localdomain', 'local', 'internal', 'home.arpa'];

function inRange(bytes: number[], range: Range): boolean {
  if (bytes.length !== range.bytes.length) return false;
  let bits = range.prefix;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if (((bytes[i] ?? 0) & mask) !== ((range.bytes[i] ?? 0) & mask)) return false;
  }
  return true;
}

/** Strict dotted-quad only; other spellings are normalised by WHATWG URL before they get here. */
function parseIPv4(text: string): number[] | null {
  if (!isIPv4(text)) return null;
  return text.split('.').map(Number);
}

/** Expands any valid IPv6 text (with `::`, an embedded dotted quad or a zone id) to 16 bytes. */
export function parseIPv6(text: string): number[] | null {
  const noZone = text.replace(/%.*$/, '');
  if (!isIPv6(noZone)) return null;
  let head = noZone;
  const tailV4: number[] = [];
  const lastColon = head.lastIndexOf(':');
  const maybeV4 = head.slice(lastColon + 1);
  if (maybeV4.includes('.')) {
    const quad = parseIPv4(maybeV4);
    if (!quad) return null;
    tailV4.push(...quad);
    head = head.slice(0, lastColon + 1) + '0:0';
  }
  const [left = '', right] = head.split('::') as [string, string | undefined];
  const leftGroups = left === '' ? [] : left.split(':');
  const rightGroups = right === undefined || right === '' ? [] : right.split(':');
  const missing = 8 - leftGroups.length - rightGroups.length;
  const groups = right === undefined ? leftGroups : [...leftGroups, ...Array(missing).fill('0'), ...rightGroups];
  if (groups.length !== 8) return null;
  const bytes: number[] = [];
  for (const g of groups) {
    const n = parseInt(g, 16);
    bytes.push((n >> 8) & 0xff, n & 0xff);
  }
  if (tailV4.length === 4) bytes.splice(12, 4, ...tailV4);
  return bytes;
}

/** IPv6 forms that carry an IPv4 destination: the IPv4 rules must apply to what they embed. */
function embeddedIPv4(b: number[]): number[] | null {
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (deprecated compatible form)
  if (zeros(0, 10) && ((b[10] === 0xff && b[11] === 0xff) || (b[10] === 0 && b[11] === 0))) {
    if (zeros(0, 16)) return null; // :: itself, handled as unspecified
    if (zeros(0, 15) && b[15] === 1) return null; // ::1, handled as loopback
    return b.slice(12, 16);
  }
  // 64:ff9b::/96, the well-known NAT64 prefix: the gateway connects to the embedded IPv4
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(4, 12)) return b.slice(12, 16);
  // 2002::/16, 6to4: bits 16..48 are the IPv4 relay target
  if (b[0] === 0x20 && b[1] === 0x02) return b.slice(2, 6);
  return null;
}

function checkV4(bytes: number[], allowPrivate: boolean): AddressVerdict {
  if (bytes.every((x) => x === 255)) return { allowed: false, reason: 'broadcast address' };
  for (const r of ALWAYS_BLOCKED_V4) if (inRange(bytes, r)) return { allowed: false, reason: r.label };
  if (!allowPrivate) for (const r of PRIVATE_V4) if (inRange(bytes, r)) return { allowed: false, reason: r.label };
  return { allowed: true };
}

/**
 * Decides whether an IP address (v4 or v6 text, optionally bracketed) may be dialled.
 * Anything that is not a valid IP address is refused: the caller asked about an address.
 */
export function checkAddress(address: string, allowPrivate: boolean): AddressVerdict {
  const text = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const quad = parseIPv4(text);
  if (quad) return checkV4(quad, allowPrivate);
  const bytes = parseIPv6(text);
  if (!bytes) return { allowed: false, reason: 'not an IP address' };
  for (const r of ALWAYS_BLOCKED_V6) if (inRange(bytes, r)) return { allowed: false, reason: r.label };
  const embedded = embeddedIPv4(bytes);
  if (embedded) {
    const verdict = checkV4(embedded, allowPrivate);
    return verdict.allowed ? verdict : { allowed: false, reason: `IPv6 form of ${verdict.reason}` };
  }
  if (!allowPrivate) for (const r of PRIVATE_V6) if (inRange(bytes, r)) return { allowed: false, reason: r.label };
  return { allowed: true };
}

/**
 * Appended to a refusal that ALLOW_PRIVATE_PLATFORM_URLS would lift (loopback, private, local names), so
 * someone pointing the service at a platform or LLM on their own machine learns the switch from the error.
 */
export const ALLOW_PRIVATE_HINT = 'set ALLOW_PRIVATE_PLATFORM_URLS=true to allow loopback and private addresses (local platforms, tests)';

function isLocalName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.+$/, '');
  return LOCAL_NAME_SUFFIXES.some((s) => name === s || name.endsWith(`.${s}`));
}

/**
 * Static check of a platform URL, before any network activity. Relies on WHATWG URL parsing,
 * which already rewrites decimal (`2130706433`), hex (`0x7f000001`), octal (`0177.0.0.1`),
 * short (`127.1`) and percent-encoded IPv4 spellings to dotted form and IPv4-in-IPv6 to hex
 * groups, so every spelling reaches `checkAddress` in a form it parses.
 */
export function checkPlatformUrl(raw: string, policy: UrlPolicy): UrlCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'not a valid absolute URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { ok: false, reason: `scheme ${url.protocol.replace(/:$/, '')} is not allowed` };
  }
  if (policy.requireHttps && url.protocol !== 'https:') return { ok: false, reason: 'https is required' };
  if (url.username !== '' || url.password !== '') {
    return { ok: false, reason: 'credentials in the URL are not allowed' };
  }
  const host = url.hostname;
  if (host === '') return { ok: false, reason: 'the URL has no host' };
  const bare = host.startsWith('[') ? host.slice(1, -1) : host;
  if (isIP(bare) !== 0) {
    const verdict = checkAddress(bare, policy.allowPrivate);
    if (verdict.allowed) return { ok: true, url };
    const liftable = !policy.allowPrivate && checkAddress(bare, true).allowed;
    return { ok: false, reason: `host is not allowed: ${verdict.reason}${liftable ? `; ${ALLOW_PRIVATE_HINT}` : ''}` };
  }
  if (!policy.allowPrivate && isLocalName(bare)) return { ok: false, reason: `host is not allowed: local name; ${ALLOW_PRIVATE_HINT}` };
  return { ok: true, url };
}

/** What `guardedLookup` asks for a name; injectable so tests need no network. */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** The `code` of every refusal by this guard, whichever layer refused. */
export const SSRF_BLOCKED = 'ERR_SSRF_BLOCKED';

/** True for a refusal by this guard (static URL check or connect-time address check). */
export function isSsrfRefusal(err: unknown): err is Error & { code: typeof SSRF_BLOCKED } {
  return err instanceof Error && (err as NodeJS.ErrnoException).code === SSRF_BLOCKED;
}

/** The static check refused the URL before any connection was attempted. */
export class RefusedUrlError extends Error {
  override readonly name = 'RefusedUrlError';
  readonly code = SSRF_BLOCKED;
  constructor(reason: string) {
    super(`URL refused: ${reason}`);
  }
}

/**
 * Raised through the lookup callback, so http.request fails with it before any connect. Its message reaches
 * admins (the webhook test, the LLM test, register-webhook), so it never says which address a name resolved to
 * or which kind of address it is: with that, anyone who may save a URL could map the internal network's names
 * ("vm resolves to a loopback address (127.0.0.1)"). The address and reason stay on the error for the logs.
 */
export class BlockedAddressError extends Error {
  override readonly name = 'BlockedAddressError';
  readonly code = SSRF_BLOCKED;
  constructor(
    readonly hostname: string,
    readonly address: string,
    readonly reason: string,
    allowPrivate: boolean,
  ) {
    const hint = allowPrivate ? '' : `; ${ALLOW_PRIVATE_HINT}`;
    // A local name is refused for its spelling, before any resolution: saying so tells nothing new.
    super(reason === 'local name' ? `${hostname} is a local name, which is not allowed${hint}` : `${hostname} resolves to an address that is not allowed (private, loopback, link-local or reserved)${hint}`);
  }
}

type LookupOptions = { family?: number | string; all?: boolean; hints?: number };
type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** The shape http.request's `lookup` option (and net.connect's) calls. */
export type LookupFunction = (hostname: string, options: LookupOptions, callback: LookupCallback) => void;

function wantedFamily(family: LookupOptions['family']): 0 | 4 | 6 {
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return 0;
}

/**
 * A `lookup` for http.request/net.connect that resolves the name and refuses the connection
 * when ANY resolved address is disallowed. Checking every address, not only the one picked,
 * matters because Node (autoSelectFamily) may try the others; and the check happens on each
 * connect, so a name rebound to 127.0.0.1 after an earlier check is still refused.
 */
export function guardedLookup(allowPrivate: boolean, resolver: Resolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    const opts: LookupOptions = typeof options === 'object' && options !== null ? options : {};
    if (!allowPrivate && isLocalName(hostname)) {
      callback(new BlockedAddressError(hostname, hostname, 'local name', allowPrivate), opts.all ? [] : '');
      return;
    }
    resolver(hostname)
      .then((addresses) => {
        if (addresses.length === 0) {
          const err: NodeJS.ErrnoException = new Error(`${hostname} did not resolve`);
          err.code = 'ENOTFOUND';
          callback(err, opts.all ? [] : '');
          return;
        }
        for (const a of addresses) {
          const verdict = checkAddress(a.address, allowPrivate);
          if (!verdict.allowed) {
            callback(new BlockedAddressError(hostname, a.address, verdict.reason, allowPrivate), opts.all ? [] : '');
            return;
          }
        }
        const family = wantedFamily(opts.family);
        const usable = family === 0 ? addresses : addresses.filter((a) => a.family === family);
        if (usable.length === 0) {
          const err: NodeJS.ErrnoException = new Error(`${hostname} has no IPv${family} address`);
          err.code = 'ENOTFOUND';
          callback(err, opts.all ? [] : '');
          return;
        }
        if (opts.all) callback(null, usable);
        else callback(null, usable[0]!.address, usable[0]!.family);
      })
      .catch((err: unknown) => {
        const e: NodeJS.ErrnoException = err instanceof Error ? err : new Error(String(err));
        callback(e, opts.all ? [] : '');
      });
  };
}
