/**
 * The path of one customer message, measured at run time: which files of src/ hold code that ran between a signed
 * msgplatform webhook and its reply reaching the platform. `npm run path:message` (add `-- --json` for JSON).
 *
 * The service runs in this process (embedded adapters, the processing side on this thread) against the fake
 * platform and the OpenAI-compatible fake LLM the tests use. A few messages warm it up; then V8's precise coverage
 * (call counts per function) is reset, one new customer's message is posted, and the counts are read again when
 * the reply arrives at the fake platform. A file is on the path when any of its functions ran in that window.
 * Background work that happened to run in the window (a timer, a projection catching up) counts too: the figures
 * are what a reader following the message at run time meets, give or take a file; run it twice to see the spread.
 *
 * Two totals: every file, and the files without the read side, the adapters and the port interfaces
 * (src/projections, src/infrastructure, src/ports), which is the path a reader of the write side follows.
 */
import { Session } from 'node:inspector/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const excluded = ['src/projections/', 'src/infrastructure/', 'src/ports/'];
const WARM_UP_MESSAGES = 6;
const SECRET = 'whsec_message_path_0123456789';
const PLATFORM_TOKEN = 'platform-token-message-path';

interface FunctionCoverage {
  ranges: { count: number }[];
}
interface ScriptCoverage {
  url: string;
  functions: FunctionCoverage[];
}

const session = new Session();
session.connect();
await session.post('Profiler.enable');
// Started before the service is loaded, so every one of its functions is counted from its first call.
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });

const { startFakeLlm } = await import('../test/support/fakeLlm.js');
const { startFakePlatform } = await import('../test/support/fakePlatform.js');
const { signWebhookBody } = await import('../src/http/platformWebhooks/webhookSignature.js');
const { loadConfig } = await import('../src/config.js');
const { createLogger } = await import('../src/infrastructure/logger.js');
const { createServer } = await import('../src/server.js');

const dataDir = mkdtempSync(join(tmpdir(), 'mas-message-path-'));
const platform = await startFakePlatform({ token: PLATFORM_TOKEN });
const llm = await startFakeLlm();
const config = loadConfig({
  NODE_ENV: 'test',
  LOG_LEVEL: 'silent',
  DATA_DIR: dataDir,
  PROCESSOR_THREAD: 'false',
  ALLOW_PRIVATE_PLATFORM_URLS: 'true',
  REPLY_BURST_WINDOW_MS: '50',
});
const server = await createServer(config, createLogger({ level: 'silent' }));
await server.processingStarted;
const base = await server.listen(0, '127.0.0.1');

async function api(method: string, path: string, body: unknown, bearer?: string): Promise<any> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function postMessage(integrationId: number, n: number, customer: string): Promise<void> {
  const body = JSON.stringify({ hook_type: 'inbox', type: 'from_client', message_id: `path-${n}`, client_id: customer, channel_id: 1, transport: 'telegram', text: `Question number ${n}?` });
  const res = await fetch(`${base}/api/webhook/msgplatform/${integrationId}`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(body, SECRET) },
  });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`webhook ${n}: ${res.status}`);
}

async function takeCoverage(): Promise<ScriptCoverage[]> {
  return ((await session.post('Profiler.takePreciseCoverage')) as { result: ScriptCoverage[] }).result;
}

/** The src/ files (repository-relative) any of whose functions ran since the last take. */
function filesThatRan(scripts: ScriptCoverage[]): string[] {
  const files = new Set<string>();
  for (const script of scripts) {
    if (!script.url.startsWith('file:')) continue;
    const path = relative(repoRoot, fileURLToPath(script.url.split('?')[0]!));
    if (!path.startsWith('src/')) continue;
    if (script.functions.some((f) => (f.ranges[0]?.count ?? 0) > 0)) files.add(path);
  }
  return [...files].sort();
}

function byFolder(files: string[]): Map<string, string[]> {
  const folders = new Map<string, string[]>();
  for (const file of files) {
    const folder = `${dirname(file)}/`;
    folders.set(folder, [...(folders.get(folder) ?? []), file.slice(folder.length)]);
  }
  return new Map([...folders].sort(([a], [b]) => a.localeCompare(b)));
}

const total = (files: string[]) => `${files.length} files in ${byFolder(files).size} folders`;

try {
  const email = `path-${process.pid}@example.com`;
  await api('POST', '/api/auth/register', { email, password: 'correct horse', companyName: 'Path' });
  const bearer = (await api('POST', '/api/auth/login', { email, password: 'correct horse' })).session.access_token as string;
  const agent = (await api('POST', '/api/agents', { name: 'Ava', systemPrompt: 'You are Ava.' }, bearer)).agent;
  await api('PUT', '/api/llm-config', { provider: 'openai', baseUrl: llm.url, apiKey: 'sk-test', model: 'gpt-4o-mini' }, bearer);
  const integration = await api('POST', '/api/integrations', { name: 'Platform', connectorType: 'msgplatform', agentId: agent.id, apiUrl: platform.url, apiToken: PLATFORM_TOKEN, webhookSecret: SECRET }, bearer);
  const integrationId = integration.integration.id as number;

  // Warm-up: first messages and follow-ups, each answered before the next, so every module on the way is loaded.
  for (let n = 1; n <= WARM_UP_MESSAGES; n++) {
    await postMessage(integrationId, n, `customer-${Math.ceil(n / 2)}`);
    await platform.waitForMessages(n, 15_000);
  }
  // What follows the warm-up's last reply (the send's result, read models, charges) settles before the window opens.
  await new Promise((r) => setTimeout(r, 1000));

  await takeCoverage();
  await postMessage(integrationId, WARM_UP_MESSAGES + 1, 'customer-measured');
  await platform.waitForMessages(WARM_UP_MESSAGES + 1, 15_000);
  const all = filesThatRan(await takeCoverage());
  const writeSide = all.filter((f) => !excluded.some((prefix) => f.startsWith(prefix)));

  if (process.argv.includes('--json')) {
    console.log(JSON.stringify({ all: { files: all.length, folders: byFolder(all).size }, withoutReadSideAdaptersPorts: { files: writeSide.length, folders: byFolder(writeSide).size }, files: all }, null, 2));
  } else {
    const readSide = all.filter((f) => !writeSide.includes(f));
    const list = (files: string[]) => [...byFolder(files)].map(([folder, names]) => `  ${folder}: ${names.join(', ')}`);
    console.log(
      [
        `One customer message, from the webhook to the reply at the platform: ${total(all)}`,
        `Without the read side, adapters and ports: ${total(writeSide)}`,
        ...list(writeSide),
        `The read side, adapters and ports (${excluded.join(', ')}): ${total(readSide)}`,
        ...list(readSide),
      ].join('\n'),
    );
  }
} finally {
  await session.post('Profiler.stopPreciseCoverage');
  session.disconnect();
  await server.stop();
  await platform.close();
  await llm.close();
  rmSync(dataDir, { recursive: true, force: true });
}
