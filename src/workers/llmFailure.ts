import type { LlmError } from '../ports/llm.js';

/**
 * Why the AI could not answer, in words a support team reads on the conversation ("The AI model could not be
 * reached (connection refused)"). The adapter's message names the base URL, addresses and socket error codes:
 * fine in the operator's log, never on a conversation, where every teammate (and its events' readers) sees it.
 */
export function plainLlmFailure(err: Pick<LlmError, 'kind' | 'message' | 'status'>): string {
  const http = err.status !== undefined ? ` (HTTP ${err.status})` : '';
  switch (err.kind) {
    case 'timeout':
      return 'The AI model did not answer in time (timeout)';
    case 'unreachable':
      return `The AI model could not be reached${socketCause(err.message)}`;
    case 'rate_limited':
      return /quota/i.test(err.message) ? "The AI model's quota is used up" : 'The AI model is rate limiting requests (too many requests)';
    case 'server_error':
      return `The AI model's service had an error${http}`;
    case 'auth':
      return "The AI model's API key was refused";
    case 'bad_response':
      return 'The AI model sent an answer that could not be read';
    case 'invalid_request':
      return /not allowed/i.test(err.message)
        ? `The AI model's address is not allowed${/loopback|private|link-local|metadata/i.test(err.message) ? ' (a loopback or private address)' : ''}`
        : /no base URL|could not be loaded/i.test(err.message)
          ? 'The AI model is not configured completely'
          : `The AI model refused the request${http}: check the model name`;
    case 'aborted':
      return 'The AI model call was cancelled';
  }
}

/** Node's socket error codes a connection fails with, in plain words. */
const SOCKET_CAUSES: [RegExp, string][] = [
  // The outbound guard refused the address the name resolved to (a name rebound to 127.0.0.1, a private network).
  [/ERR_SSRF_BLOCKED|loopback|private|link-local|metadata/i, 'its address is a loopback or private one, which the service does not call'],
  [/ECONNREFUSED/, 'connection refused'],
  [/ENOTFOUND|EAI_AGAIN/, 'its host name was not found'],
  [/ECONNRESET|socket hang up/i, 'the connection was cut'],
  [/ETIMEDOUT|ENETUNREACH|EHOSTUNREACH/, 'no route to its address'],
  [/certificate|CERT_|SSL|TLS/i, 'its TLS certificate was refused'],
];

function socketCause(message: string): string {
  const found = SOCKET_CAUSES.find(([pattern]) => pattern.test(message));
  return found ? ` (${found[1]})` : '';
}
