/**
 * The metrics port: what the HTTP layer and the workers report, without knowing the metrics library.
 * Adapters: `src/infrastructure/metrics/` (Prometheus, prom-client) and the no-op ones below (tests, tools).
 * Label values are bounded sets or ids, never names, texts or secrets.
 */

/** How a webhook POST ended: the accepted outcomes of API.md, or the class of its rejection. */
export const webhookOutcomes = [
  'processed',
  'duplicate',
  'ignored',
  'rejected_not_found',
  'rejected_unauthorized',
  'rejected_forbidden',
  'rejected_invalid',
  'error',
] as const;
export type WebhookOutcome = (typeof webhookOutcomes)[number];

export interface WebhookMetrics {
  webhookHandled(outcome: WebhookOutcome, seconds: number): void;
}

export type JobQueue = 'reply' | 'send';

/**
 * One job a worker took off the bus, per company: `waiting` (burst window, or for its company's worker slot),
 * then `running`, until `done`. A job whose company is not known yet is not counted.
 */
export interface JobTracker {
  waiting(companyId: string): void;
  running(companyId: string): void;
  done(): void;
}

export interface JobMetrics {
  jobStarted(queue: JobQueue): JobTracker;
}

const noopTracker: JobTracker = { waiting: () => {}, running: () => {}, done: () => {} };
export const noopJobMetrics: JobMetrics = { jobStarted: () => noopTracker };
export const noopWebhookMetrics: WebhookMetrics = { webhookHandled: () => {} };
