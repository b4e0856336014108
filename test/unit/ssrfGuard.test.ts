import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import {
  BlockedAddressError,
  checkAddress,
  checkPlatformUrl,
  guardedLookup,
  parseIPv6,
  type Resolver,
} from '../../src/infrastructure/net/ssrfGuard.js';

const strict = { allowPrivate: false, requireHttps: true };
const strictHttp = { allowPrivate: false, requireHttps: false };
const lenient = { allowPrivate: true, requireHttps: false };

describe('platform URL: scheme, credentials, shape', () => {
  it('accepts the known public instances', () => {
    for (const url of ['https://api.chat2desk.com', 'https://api.chat24.io/', 'https://api.chat2desk.com/gateway/']) {
      const r = checkPlatformUrl(url, strict);
      expect(r.ok, url).toBe(true);
    }
  });

  it('returns the parsed URL on success', () => {
    const r = checkPlatformUrl('https://api.chat2desk.com/prefix', strict);
    expect(r.ok && r.url.pathname).toBe('/prefix');
  });

  it.each([
    ['not a URL', 'api.chat2desk.com'],
    ['a relative path', '/v1/webhooks'],
    ['an empty string', ''],
    ['ftp', 'ftp://api.chat2desk.com'],
    ['file', 'file:///etc/passwd'],
    ['gopher', 'gopher://api.chat2desk.com'],
    ['javascript', 'javascript:alert(1)'],
    ['data', 'data:text/plain,hi'],
    ['a user name', 'https://admin@api.chat2desk.com'],
    ['user and password', 'https://admin:pw@api.chat2desk.com'],
    ['a password only', 'https://:pw@api.chat2desk.com'],
  ])('refuses %s', (_label, url) => {
    expect(checkPlatformUrl(url, lenient).ok).toBe(false);
  });

  it('refuses http when https is required, accepts it otherwise', () => {
    const r = checkPlatformUrl('http://api.chat2desk.com', strict);
    expect(r).toEqual({ ok: false, reason: 'https is required' });
    expect(checkPlatformUrl('http://api.chat2desk.com', strictHttp).ok).toBe(true);
  });
});

describe('platform URL: loopback, private and link-local hosts in every spelling', () => {
  const blocked: Array<[string, string]> = [
    ['dotted loopback', 'http://127.0.0.1/'],
    ['loopback with a port', 'http://127.0.0.1:8080/'],
    ['elsewhere in 127/8', 'http://127.255.0.9/'],
    ['decimal', 'http://2130706433/'],
    ['hex', 'http://0x7f000001/'],
    ['dotted hex', 'http://0x7f.0x0.0x0.0x1/'],
    ['octal', 'http://0177.0.0.1/'],
    ['short', 'http://127.1/'],
    ['short hex', 'http://0x7f.1/'],
    ['percent-encoded', 'http://%31%32%37.0.0.1/'],
    ['full-width digits', 'http://１２７.０.０.１/'],
    ['unspecified 0.0.0.0', 'http://0.0.0.0/'],
    ['unspecified as 0', 'http://0/'],
    ['IPv6 loopback', 'http://[::1]/'],
    ['IPv6 loopback, long form', 'http://[0:0:0:0:0:0:0:1]/'],
    ['IPv6 unspecified', 'http://[::]/'],
    ['IPv4-mapped loopback, dotted', 'http://[::ffff:127.0.0.1]/'],
    ['IPv4-mapped loopback, hex', 'http://[::ffff:7f00:1]/'],
    ['IPv4-compatible loopback', 'http://[::127.0.0.1]/'],
    ['IPv4-mapped private', 'http://[::ffff:10.0.0.1]/'],
    ['IPv4-mapped metadata', 'http://[::ffff:169.254.169.254]/'],
    ['NAT64 of loopback', 'http://[64:ff9b::127.0.0.1]/'],
    ['6to4 of private 192.168.1.1', 'http://[2002:c0a8:101::1]/'],
    ['Teredo', 'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/'],
    ['metadata 169.254.169.254', 'http://169.254.169.254/latest/meta-data/'],
    ['metadata in decimal', 'http://2852039166/'],
    ['link-local 169.254/16', 'http://169.254.1.1/'],
    ['IPv6 link-local fe80::/10', 'http://[fe80::1]/'],
    ['IPv6 link-local, upper end', 'http://[febf::1]/'],
    ['private 10/8', 'http://10.1.2.3/'],
    ['private 172.16/12 low', 'http://172.16.0.1/'],
    ['private 172.16/12 high', 'http://172.31.255.254/'],
    ['private 192.168/16', 'http://192.168.0.10/'],
    ['unique local fc00::/7', 'http://[fc00::1]/'],
    ['unique local fd…', 'http://[fd12:3456:789a::1]/'],
    ['AWS IPv6 metadata', 'http://[fd00:ec2::254]/'],
    ['CGNAT 100.64/10', 'http://100.64.0.1/'],
    ['CGNAT upper end', 'http://100.127.255.254/'],
    ['multicast', 'http://224.0.0.1/'],
    ['IPv6 multicast', 'http://[ff02::1]/'],
    ['broadcast', 'http://255.255.255.255/'],
    ['localhost', 'http://localhost/'],
    ['LOCALHOST upper-case with a trailing dot', 'http://LOCALHOST./'],
    ['a subdomain of localhost', 'http://api.localhost/'],
    ['localhost.localdomain', 'http://localhost.localdomain/'],
    ['an mDNS .local name', 'http://printer.local/'],
    ['a cloud-internal name', 'http://metadata.google.internal/'],
  ];

  it.each(blocked)('refuses %s (%s) when private addresses are not allowed', (_label, url) => {
    const r = checkPlatformUrl(url, strictHttp);
    expect(r.ok).toBe(false);
  });

  it.each([
    ['public IPv4', 'http://93.184.215.14/'],
    ['just outside 172.16/12', 'http://172.32.0.1/'],
    ['just outside 100.64/10', 'http://100.128.0.1/'],
    ['just outside 169.254/16', 'http://169.255.0.1/'],
    ['public IPv6', 'http://[2606:4700:4700::1111]/'],
    ['IPv4-mapped public', 'http://[::ffff:8.8.8.8]/'],
    ['a name that merely contains an IP (resolved later, by the guarded lookup)', 'http://127.0.0.1.nip.io/'],
    ['a name that merely contains "localhost"', 'http://localhost-api.example.com/'],
  ])('lets %s through the static check', (_label, url) => {
    expect(checkPlatformUrl(url, strictHttp).ok).toBe(true);
  });

  it('says why a host was refused', () => {
    expect(checkPlatformUrl('http://[::ffff:127.0.0.1]/', strictHttp)).toEqual({
      ok: false,
      reason: 'host is not allowed: IPv6 form of loopback address; set ALLOW_PRIVATE_PLATFORM_URLS=true to allow loopback and private addresses (local platforms, tests)',
    });
    expect(checkPlatformUrl('http://localhost/', strictHttp)).toEqual({
      ok: false,
      reason: 'host is not allowed: local name; set ALLOW_PRIVATE_PLATFORM_URLS=true to allow loopback and private addresses (local platforms, tests)',
    });
  });

  it('names ALLOW_PRIVATE_PLATFORM_URLS only where that switch would help', () => {
    const refused = (url: string) => {
      const verdict = checkPlatformUrl(url, strictHttp);
      return verdict.ok ? '' : verdict.reason;
    };
    expect(refused('http://127.0.0.1:4000/')).toContain('ALLOW_PRIVATE_PLATFORM_URLS');
    expect(refused('http://10.0.0.5/')).toContain('ALLOW_PRIVATE_PLATFORM_URLS');
    // Metadata addresses stay refused with the switch on: naming it would mislead.
    expect(refused('http://169.254.169.254/')).not.toContain('ALLOW_PRIVATE_PLATFORM_URLS');
  });

  describe('with allowPrivate (tests, local platforms)', () => {
    it.each(['http://127.0.0.1:4000/', 'http://localhost:4000/', 'http://10.0.0.5/', 'http://[::1]:4000/', 'http://[fd00::1]/'])(
      'accepts %s',
      (url) => {
        expect(checkPlatformUrl(url, lenient).ok).toBe(true);
      },
    );

    it.each([
      'http://169.254.169.254/',
      'http://[::ffff:169.254.169.254]/',
      'http://100.100.100.200/',
      'http://[fd00:ec2::254]/',
      'http://0.0.0.0/',
      'http://[::]/',
      'http://224.0.0.1/',
      'http://255.255.255.255/',
    ])('still refuses %s (metadata, unspecified, multicast, broadcast are never a platform)', (url) => {
      expect(checkPlatformUrl(url, lenient).ok).toBe(false);
    });

    it('still refuses credentials and foreign schemes', () => {
      expect(checkPlatformUrl('http://u:p@127.0.0.1/', lenient).ok).toBe(false);
      expect(checkPlatformUrl('file:///etc/passwd', lenient).ok).toBe(false);
    });
  });
});

describe('address parsing', () => {
  it('expands IPv6 text to 16 bytes', () => {
    expect(parseIPv6('::1')).toEqual([...Array(15).fill(0), 1]);
    expect(parseIPv6('::ffff:127.0.0.1')).toEqual([...Array(10).fill(0), 0xff, 0xff, 127, 0, 0, 1]);
    expect(parseIPv6('fe80::1%eth0')).toEqual([0xfe, 0x80, ...Array(13).fill(0), 1]);
    expect(parseIPv6('1:2:3:4:5:6:7:8')).toEqual([0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8]);
    expect(parseIPv6('127.0.0.1')).toBeNull();
    expect(parseIPv6('not-an-ip')).toBeNull();
  });

  it('refuses anything that is not an IP address', () => {
    expect(checkAddress('example.com', true)).toEqual({ allowed: false, reason: 'not an IP address' });
    expect(checkAddress('', true).allowed).toBe(false);
  });

  it('accepts bracketed IPv6', () => {
    expect(checkAddress('[::1]', false).allowed).toBe(false);
    expect(checkAddress('[2606:4700:4700::1111]', false).allowed).toBe(true);
  });
});

type LookupResult = { err: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number };

function runLookup(
  lookup: ReturnType<typeof guardedLookup>,
  hostname: string,
  options: { all?: boolean; family?: number } = {},
): Promise<LookupResult> {
  return new Promise((resolve) => {
    lookup(hostname, options, (err, address, family) => resolve({ err, address, ...(family === undefined ? {} : { family }) }));
  });
}

/** A resolver answering from a table, as DNS would, with a count of how often it was asked. */
function stubResolver(table: Record<string, LookupAddress[]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const fn = async (hostname: string) => {
    calls.push(hostname);
    const answer = table[hostname];
    if (!answer) {
      const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
      err.code = 'ENOTFOUND';
      throw err;
    }
    return answer;
  };
  return Object.assign(fn, { calls });
}

describe('guarded lookup: the address actually dialled is checked after resolution', () => {
  const table = {
    'api.platform.test': [{ address: '93.184.215.14', family: 4 }],
    'dual.platform.test': [
      { address: '2606:4700:4700::1111', family: 6 },
      { address: '93.184.215.14', family: 4 },
    ],
    '127.0.0.1.nip.io': [{ address: '127.0.0.1', family: 4 }],
    'sneaky.platform.test': [
      { address: '93.184.215.14', family: 4 },
      { address: '10.0.0.8', family: 4 },
    ],
    'mapped.platform.test': [{ address: '::ffff:127.0.0.1', family: 6 }],
    'metadata.platform.test': [{ address: '169.254.169.254', family: 4 }],
    'empty.platform.test': [],
  };

  it('passes a public address through, in the single-address form', async () => {
    const r = await runLookup(guardedLookup(false, stubResolver(table)), 'api.platform.test');
    expect(r).toEqual({ err: null, address: '93.184.215.14', family: 4 });
  });

  it('passes every address through in the all form (used by autoSelectFamily)', async () => {
    const r = await runLookup(guardedLookup(false, stubResolver(table)), 'dual.platform.test', { all: true });
    expect(r.err).toBeNull();
    expect(r.address).toEqual(table['dual.platform.test']);
  });

  it('honours a requested family', async () => {
    const r = await runLookup(guardedLookup(false, stubResolver(table)), 'dual.platform.test', { family: 4 });
    expect(r).toEqual({ err: null, address: '93.184.215.14', family: 4 });
  });

  it.each([
    ['a name that resolves to loopback (127.0.0.1.nip.io style)', '127.0.0.1.nip.io'],
    ['a name where ANY of the answers is private', 'sneaky.platform.test'],
    ['a name resolving to an IPv4-mapped loopback', 'mapped.platform.test'],
    ['a name resolving to the metadata address', 'metadata.platform.test'],
  ])('refuses %s', async (_label, host) => {
    const r = await runLookup(guardedLookup(false, stubResolver(table)), host);
    expect(r.err).toBeInstanceOf(BlockedAddressError);
    expect((r.err as BlockedAddressError).code).toBe('ERR_SSRF_BLOCKED');
  });

  it('refuses localhost without asking DNS', async () => {
    const resolver = stubResolver(table);
    const r = await runLookup(guardedLookup(false, resolver), 'localhost');
    expect(r.err).toBeInstanceOf(BlockedAddressError);
    expect(resolver.calls).toEqual([]);
  });

  it('checks again on every call, so rebinding a name to 127.0.0.1 later still fails', async () => {
    const answers: LookupAddress[][] = [[{ address: '93.184.215.14', family: 4 }], [{ address: '127.0.0.1', family: 4 }]];
    const lookup = guardedLookup(false, async () => answers.shift() ?? []);
    expect((await runLookup(lookup, 'rebind.platform.test')).err).toBeNull();
    expect((await runLookup(lookup, 'rebind.platform.test')).err).toBeInstanceOf(BlockedAddressError);
  });

  it('allows private answers when allowPrivate is set, but never the metadata address', async () => {
    const lookup = guardedLookup(true, stubResolver(table));
    expect(await runLookup(lookup, '127.0.0.1.nip.io')).toEqual({ err: null, address: '127.0.0.1', family: 4 });
    expect((await runLookup(lookup, 'metadata.platform.test')).err).toBeInstanceOf(BlockedAddressError);
  });

  it('passes resolver failures and empty answers on as ENOTFOUND', async () => {
    const lookup = guardedLookup(false, stubResolver(table));
    expect((await runLookup(lookup, 'nowhere.platform.test')).err?.code).toBe('ENOTFOUND');
    expect((await runLookup(lookup, 'empty.platform.test')).err?.code).toBe('ENOTFOUND');
  });

  it('with the system resolver, localhost is refused and allowed per the flag', async () => {
    expect((await runLookup(guardedLookup(false), 'localhost')).err).toBeInstanceOf(BlockedAddressError);
    const allowed = await runLookup(guardedLookup(true), 'localhost', { all: true });
    expect(allowed.err).toBeNull();
    expect((allowed.address as LookupAddress[]).length).toBeGreaterThan(0);
  });
});
