import type { Config } from '../config.js';
import type { AuthDeps, CommandDeps } from '../commands/deps.js';
import type { SecretBox } from '../ports/secretBox.js';
import type { PlatformClient } from '../ports/platform.js';
import type { ReadStore } from '../ports/readStore.js';
import type { CompanyLlmConfig } from '../domain/llm/state.js';
import type { LlmProvider } from '../ports/llm.js';
import type { Mailer } from '../ports/mailer.js';
import type { ReplayMetrics, WebhookMetrics } from '../ports/metrics.js';
import type { KnowledgeSearch } from '../ports/knowledgeSearch.js';
import type { WebhookSender } from '../ports/webhookSender.js';
import type { ActionCaller } from '../ports/actionCaller.js';
import type { PersonalDataKeys } from '../ports/personalDataKeys.js';

/** What route plugins need from the composition root. */
export interface HttpServices {
  config: Config;
  commands: CommandDeps;
  auth: AuthDeps;
  readStore: ReadStore;
  secretBox: SecretBox;
  /** Outbound webhooks' sender (test events and manual resends from the API). */
  webhookSender: WebhookSender;
  platform: PlatformClient;
  /** A company's actions, called for real from the API only by their "Test" (through the outbound guard). */
  actionCaller: ActionCaller;
  /** Static SSRF check of a platform apiUrl (scheme, literal addresses); DNS is checked again at call time. */
  checkPlatformUrl(url: string): { ok: true } | { ok: false; reason: string };
  /**
   * Read-your-writes, best effort: resolves once every projector has applied the event at `position`, or after
   * READ_YOUR_WRITES_TIMEOUT_MS with a warning logged. A request that wrote answers from what it wrote, so read
   * models seconds behind (an overloaded processing side) never turn a stored write into a 500.
   */
  waitForProjections(position: bigint | null): Promise<void>;
  /** The same wait, failing when the read models do not get there in time (for a read that must see them). */
  waitForProjectionsOrFail(position: bigint | null): Promise<void>;
  /** A company's LLM configuration → its provider (builtin or OpenAI-compatible). */
  llmResolver: (config: CompanyLlmConfig) => LlmProvider;
  /** In-memory knowledge-base search and its progress (read-your-writes). */
  knowledge: KnowledgeSearch;
  /** Webhook rate, outcome and latency (Prometheus /metrics); none in tools and some tests. */
  webhookMetrics?: WebhookMetrics;
  /** Replays cancelled through the API (the processing side counts the other outcomes). */
  replayMetrics?: ReplayMetrics;
  /** Customer erasure: the keys it deletes, and the sweep that then purges the read models (processing/erasures.ts). */
  erasure?: { keys: PersonalDataKeys; sweep: { request(): void; idle(): Promise<void> } };
  /** Invitation emails (SMTP_URL); none: links are only shown in the dashboard. */
  mailer?: Mailer;
}
