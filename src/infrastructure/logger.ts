import pino, { type Logger as PinoLogger } from 'pino';

/**
 * Secrets must never reach a log line: headers carrying credentials or signatures, and any field whose
 * name says it holds one, wherever it appears in a logged object (pino's wildcards match one level, so
 * the common nesting depths are listed).
 */
const secretKeys = [
  'password',
  'token',
  'access_token',
  'refresh_token',
  'refreshToken',
  'accessToken',
  'apiToken',
  'apiKey',
  'api_key',
  'webhookSecret',
  'secret',
  'visitorToken',
  'identitySecret',
  'userHash',
  'authorization',
];
export const redactPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-webhook-signature"]',
  'req.headers["x-hub-signature-256"]',
  'req.headers["sec-websocket-protocol"]',
  'res.headers["set-cookie"]',
  'req.query.access_token',
  '*["x-webhook-signature"]',
  '*["x-hub-signature-256"]',
  // The in-process webhook token (src/http/platformWebhooks/inProcessWebhook.ts) lifts the HTTPS rule; it has no business in a log.
  '*["x-mas-in-process"]',
  '*.cookie',
  ...secretKeys,
  ...secretKeys.map((k) => `*.${k}`),
  ...secretKeys.map((k) => `*.*.${k}`),
];

export function createLogger(options: { level: string; destination?: pino.DestinationStream }): PinoLogger {
  return pino(
    {
      level: options.level,
      redact: { paths: redactPaths, censor: '[redacted]' },
      base: { service: 'messaging-agent-service' },
      timestamp: pino.stdTimeFunctions.isoTime,
      serializers: {
        req: (req: { id?: string; method?: string; url?: string }) => ({
          id: req.id,
          method: req.method,
          // Query strings may carry an SSE access token: log the path only.
          url: req.url?.split('?')[0],
        }),
      },
    },
    options.destination,
  );
}
