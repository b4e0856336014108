import type { CommandDeps } from '../commands/deps.js';
import type { Pricing } from '../domain/credits/decider.js';
import type { CompanyLlmConfig } from '../domain/llm/state.js';
import type { ActionCaller } from '../ports/actionCaller.js';
import type { Bus } from '../ports/bus.js';
import type { LlmProvider } from '../ports/llm.js';
import type { Logger } from '../ports/logger.js';
import type { Mailer } from '../ports/mailer.js';
import type { JobMetrics, ReplayMetrics } from '../ports/metrics.js';
import type { PlatformClient } from '../ports/platform.js';
import type { ReadStore } from '../ports/readStore.js';
import type { SecretBox } from '../ports/secretBox.js';
import type { searchPassages } from '../workers/answers/answerGeneration.js';

/** What the bus workers of a processing thread (customer replies, replay evaluations) are started with. */
export interface WorkerDeps {
  commands: CommandDeps;
  readStore: ReadStore;
  bus: Bus;
  platform: PlatformClient;
  secretBox: SecretBox;
  /** The knowledge index the answers search. */
  knowledge: Parameters<typeof searchPassages>[0];
  llmResolver(config: CompanyLlmConfig): LlmProvider;
  /** Makes the company's action calls (through the outbound guard); absent: agents answer without actions. */
  actionCaller?: ActionCaller;
  pricing: Pricing;
  logger: Logger;
  settings: WorkerSettings;
  /** The embedded bus loses jobs on a restart: republish unfinished ones once projections caught up. */
  recoverJobs?: { waitForProjections(): Promise<void> };
  /** Where the workers report the jobs they hold per company (the queue-depth metric). */
  jobMetrics?: JobMetrics;
  /** Replay outcomes, answers and running replay jobs. */
  replayMetrics?: ReplayMetrics;
  /** Email notifications to teammates; absent without SMTP (then none are sent). */
  notifications?: { mailer: Mailer; dashboardUrl: string; sweepIntervalMs: number };
}

export interface WorkerSettings {
  burstWindowMs: number;
  llmRetryDelaysMs: number[];
  sendMaxAttempts: number;
  sendRetryBackoffMs: number[];
  workerConcurrency: number;
  perCompanyConcurrency: number;
  replyQueueCapacity: number;
  replyMaxDelayMs: number;
}
