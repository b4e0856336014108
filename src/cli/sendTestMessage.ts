/**
 * `npm run send-test-message -- <integrationId> "text"`: sends a test customer message to an integration and
 * prints the agent's answer, through `POST /api/integrations/:id/test-message` of a running service.
 *
 * Credentials: a company API token (dashboard → Settings → API tokens) in `MAS_API_TOKEN` or `--token`. Not the
 * webhook secret: it is write-only (never shown again after saving), and the server signs with it itself, so the
 * secret stays on the server and the token's company decides which integrations may be tried (another company's
 * is 404). The service's address comes from `--url` or `BASE_URL` (default http://localhost:3000).
 * Exit code 0 when the message was accepted, 1 when the service refused it (a refused token says so) or could not be
 * reached, 2 on bad usage (a token with characters no token has included).
 */
import { pathToFileURL } from 'node:url';
import { runCli } from './runCli.js';

export const USAGE =
  'usage: npm run send-test-message -- <integrationId> "text" [--url http://localhost:3000] [--token mas_…] [--no-wait]\n' +
  '       (or set BASE_URL and MAS_API_TOKEN; create the token in the dashboard under Settings → API tokens)';

export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
  fetch: typeof fetch;
  sleep: (ms: number) => Promise<void>;
}

type Parsed = { integrationId: string; text: string; url: string; token: string; wait: boolean };

function parseArgs(argv: string[], env: NodeJS.ProcessEnv): Parsed | string {
  const positional: string[] = [];
  let url = env.BASE_URL;
  let token = env.MAS_API_TOKEN;
  let wait = true;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--url' || arg === '--token') {
      const value = argv[++i];
      if (!value) return `${arg} needs a value`;
      if (arg === '--url') url = value;
      else token = value;
    } else if (arg.startsWith('--url=')) url = arg.slice(6);
    else if (arg.startsWith('--token=')) token = arg.slice(8);
    else if (arg === '--no-wait') wait = false;
    else if (arg.startsWith('--')) return `unknown option ${arg}`;
    else positional.push(arg);
  }
  const [integrationId, text, ...rest] = positional;
  if (!integrationId || !/^\d{1,15}$/.test(integrationId)) return 'the first argument must be the integration id (a number, shown on the integration card)';
  if (!text || text.trim() === '' || rest.length > 0) return 'give the message text as one quoted argument';
  if (!token) return 'no API token: set MAS_API_TOKEN or pass --token (dashboard → Settings → API tokens)';
  return { integrationId, text, url: (url || 'http://localhost:3000').replace(/\/+$/, ''), token, wait };
}

/** What no API token ever contains: a token copied with the README's "…", a quote or a space would never be sent. */
const TOKEN_CHARACTERS = /^[\x21-\x7e]+$/;

export async function sendTestMessageCli(argv: string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<number> {
  const parsed = parseArgs(argv, env);
  if (typeof parsed === 'string') {
    io.err(`${parsed}\n${USAGE}`);
    return 2;
  }
  const { url, token, integrationId, text } = parsed;
  if (!TOKEN_CHARACTERS.test(token)) {
    io.err(`the token was refused before sending: it has characters no API token has (a space, a quote or the "…" of an example?); copy the whole token again (${TOKEN_HELP})`);
    return 2;
  }
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  let res: Response;
  try {
    res = await io.fetch(`${url}/api/integrations/${integrationId}/test-message`, { method: 'POST', headers, body: JSON.stringify({ text }) });
  } catch (err) {
    io.err(`could not reach the service at ${url}: ${networkCause(err)} (is it running? set BASE_URL or --url)`);
    return 1;
  }
  const body = (await res.json().catch(() => null)) as { conversationId?: string; error?: { code: string; message: string } } | null;
  if (res.status === 401) {
    io.err(`the token was refused (401 ${body?.error?.code ?? 'UNAUTHORIZED'}): it is wrong, revoked, or its creator left the team (${TOKEN_HELP})`);
    return 1;
  }
  if (res.status !== 202 || !body?.conversationId) {
    io.err(`refused: ${res.status} ${body?.error ? `${body.error.code}: ${body.error.message}` : 'unexpected answer'}`);
    return 1;
  }
  const conversationId = body.conversationId;
  io.out(`sent to integration ${integrationId}; conversation ${conversationId}`);
  io.out(`open it: ${url}/#/conversations/${conversationId}`);
  if (!parsed.wait) return 0;
  for (const line of await awaitAnswer(io, `${url}/api/conversations/${conversationId}`, headers, text.trim())) io.out(line);
  return 0;
}

const TOKEN_HELP = 'dashboard → Settings → API tokens; pass it in MAS_API_TOKEN or --token';

/** Why fetch failed, in words: Node's "fetch failed" hides the reason in `cause`. */
function networkCause(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code === 'ECONNREFUSED') return 'connection refused (nothing listens there)';
  if (cause?.code === 'ENOTFOUND' || cause?.code === 'EAI_AGAIN') return 'its host name does not resolve';
  return cause?.message ?? (err as Error).message;
}

type Message = { author: string; text: string; delivery: string; deliveredTo?: string | null; deliveryError?: string | null };
type Detail = { conversation?: { session?: { state: string; pausedReason?: string } | null; handoff?: { reason: string } | null }; messages: Message[] };

/**
 * The agent answers asynchronously: waits a little for an answer newer than what was sent, and names the real
 * cause when none can come (the conversation is paused) or none came in time.
 */
async function awaitAnswer(io: CliIo, conversationUrl: string, headers: Record<string, string>, text: string): Promise<string[]> {
  const deadline = Date.now() + 30_000;
  let lastStatus = 0;
  while (Date.now() < deadline) {
    const res = await io.fetch(conversationUrl, { headers }).catch(() => null);
    lastStatus = res?.status ?? 0;
    const detail = res?.ok ? ((await res.json().catch(() => null)) as Detail | null) : null;
    const messages = detail?.messages ?? [];
    const mine = messages.map((m) => m.author === 'customer' && m.text === text).lastIndexOf(true);
    const answer = messages.slice(mine + 1).find((m) => m.author === 'agent' || m.author === 'system');
    const paused = detail?.conversation?.session?.state === 'paused' ? pauseCause(detail.conversation) : null;
    if (answer && (answer.author === 'system' || answer.delivery !== 'pending')) {
      return [`${answer.author === 'agent' ? 'agent' : 'note'}: ${answer.text}`, deliveryLine(answer), ...(paused ? [`the conversation is now paused: ${paused}`] : [])];
    }
    if (!answer && paused) return [`no answer: the conversation is paused (${paused}), so the AI agent does not answer it; a teammate answers it in the dashboard, or resumes the AI there`];
    await io.sleep(500);
  }
  if (lastStatus === 401) return ['no answer seen: the token was refused while waiting for it (revoked?); the answer will appear in the dashboard'];
  if (lastStatus === 0) return ['no answer seen: the service stopped answering while waiting for it; the answer will appear in the dashboard once it is back'];
  return ['no answer within 30 s yet; it will appear in the dashboard (is the agent active and assigned to the integration, and are there credits?)'];
}

function pauseCause(conversation: NonNullable<Detail['conversation']>): string {
  if (conversation.handoff) return 'handed off to a human';
  switch (conversation.session?.pausedReason) {
    case 'credits_exhausted':
      return 'the company is out of credits';
    case 'operator_message':
    case 'api':
      return 'a teammate took it over';
    case 'dialog_transferred':
      return 'the platform transferred it to its operators';
    default:
      return 'handed off to a human';
  }
}

function deliveryLine(m: Message): string {
  if (m.author === 'system') return '(not answered by the AI agent)';
  if (m.delivery === 'failed') return `not delivered: ${m.deliveryError ?? 'no reason recorded'}`;
  if (m.deliveredTo === 'sandbox') return 'delivered to the sandbox (the integration has no platform API URL: sent nowhere)';
  return 'delivered';
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runCli(() =>
    sendTestMessageCli(process.argv.slice(2), process.env, {
      out: (line) => console.log(line),
      err: (line) => console.error(line),
      fetch,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    }),
  );
}
