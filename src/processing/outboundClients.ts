import { join } from 'node:path';
import type { Logger as PinoLogger } from 'pino';
import type { Config } from '../config.js';
import { createSecretBox, parseMasterKey } from '../infrastructure/crypto/secretBox.js';
import { loadOrCreateKeyFile } from '../infrastructure/keyFile.js';
import { createLlmResolver } from '../infrastructure/llm/llmForCompany.js';
import type { Resolver } from '../infrastructure/net/ssrfGuard.js';
import { createPlatformClient } from '../infrastructure/platform/platformClient.js';
import { createHttpActionCaller } from '../infrastructure/actions/httpActionCaller.js';
import { createWebhookSender } from '../infrastructure/outboundWebhooks/webhookSender.js';
import { createSmtpMailer } from '../infrastructure/mail/smtpMailer.js';
import type { PlatformClient } from '../ports/platform.js';

export interface OutboundOptions {
  platform?: PlatformClient;
  /** Name resolution for outbound LLM calls (tests simulate a name that resolves to loopback, offline). */
  dnsResolver?: Resolver;
}

/** Keys and the clients that leave the process (platform, LLM, outbound webhooks): the same for the HTTP side and the processing side. */
export function outboundClients(config: Config, logger: PinoLogger, options: OutboundOptions = {}) {
  const jwtKey = config.jwtSecret ? new TextEncoder().encode(config.jwtSecret) : loadOrCreateKeyFile(join(config.dataDir, 'jwt.key'));
  const masterKey = config.masterKey ? parseMasterKey(config.masterKey) : loadOrCreateKeyFile(join(config.dataDir, 'master.key'));
  const secretBox = createSecretBox(masterKey);
  const requireHttps = config.env === 'production';
  const platform =
    options.platform ?? createPlatformClient({ allowPrivate: config.allowPrivatePlatformUrls, requireHttps, logger: logger.child({ component: 'platform' }) });
  const llmResolver = createLlmResolver({
    secretBox,
    timeoutMs: config.llmTimeoutMs,
    maxRetries: config.llmMaxRetries,
    // The same address policy as platform URLs, enforced at connect time (SSRF).
    network: { allowPrivate: config.allowPrivatePlatformUrls, requireHttps, ...(options.dnsResolver ? { resolver: options.dnsResolver } : {}) },
  });
  // Outbound webhooks: the same address policy, checked when each delivery connects.
  const webhookSender = createWebhookSender({ allowPrivate: config.allowPrivatePlatformUrls, requireHttps, timeoutMs: config.webhooks.timeoutMs, ...(options.dnsResolver ? { resolver: options.dnsResolver } : {}) });
  // Company actions: the same address policy, checked when each call connects, no redirects.
  const actionCaller = createHttpActionCaller({ allowPrivate: config.allowPrivatePlatformUrls, requireHttps, ...(options.dnsResolver ? { resolver: options.dnsResolver } : {}) });
  // Email (notifications on the processing side, invitations on the HTTP side): none without SMTP_URL.
  const mailer = config.smtp ? createSmtpMailer(config.smtp) : undefined;
  return { jwtKey, secretBox, requireHttps, platform, llmResolver, webhookSender, actionCaller, mailer };
}
