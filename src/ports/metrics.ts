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
  /** A rejected delivery beyond the per-integration log limit: counted here instead of logged. */
  rejectionNotLogged(): void;
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

/** What a company has waiting in one processor's queue (the fair scheduler's view). */
export interface QueueBacklog {
  companyId: string;
  waiting: number;
  /** `since` of its oldest waiting job (ms since the epoch), null when none waits. */
  oldestSince: number | null;
}

/** How a reply job ended (bounded: these values only). */
export type ReplyResult = 'replied' | 'skipped' | 'unanswered' | 'dropped' | 'backlog' | 'failed';

export interface JobMetrics {
  jobStarted(queue: JobQueue): JobTracker;
  /** The queue whose per-company backlog a scrape reports (top companies by depth, the rest as one). */
  watchBacklog(queue: JobQueue, backlog: () => QueueBacklog[]): void;
  replyFinished(result: ReplyResult): void;
  /** From a customer's oldest unanswered message to the AI reply accepted by its channel. */
  replyDelivered(seconds: number): void;
}

/** How a replay evaluation ended (its terminal event). */
export type ReplayOutcome = 'completed' | 'failed' | 'cancelled';

/**
 * Replay evaluations, counted by the process that appended the fact (each terminal event and each answer is
 * appended once, so the sum over every process's /metrics counts each once), and the conversation jobs this
 * process's replay worker is running.
 */
export interface ReplayMetrics {
  replayFinished(outcome: ReplayOutcome): void;
  answerRecorded(status: 'answered' | 'failed'): void;
  /** A conversation's replay job started in this process; call the result when it ends, however it ends. */
  jobStarted(): () => void;
}

const noopTracker: JobTracker = { waiting: () => {}, running: () => {}, done: () => {} };
export const noopJobMetrics: JobMetrics = { jobStarted: () => noopTracker, watchBacklog: () => {}, replyFinished: () => {}, replyDelivered: () => {} };
export const noopWebhookMetrics: WebhookMetrics = { webhookHandled: () => {}, rejectionNotLogged: () => {} };
export const noopReplayMetrics: ReplayMetrics = { replayFinished: () => {}, answerRecorded: () => {}, jobStarted: () => () => {} };

/** Outbound webhook deliveries per endpoint (the metrics keep their labels bounded: top endpoints, then "other"). */
export interface OutboundWebhookMetrics {
  attempted(endpointId: string, ok: boolean, latencyMs: number): void;
  /** How old the event just delivered was (its timestamp to its 2xx). */
  lag(endpointId: string, ms: number): void;
}

/** How an action call ended (bounded: these values only). */
export const actionCallOutcomes = ['succeeded', 'failed', 'rejected', 'declined', 'refused', 'expired'] as const;
export type ActionCallOutcome = (typeof actionCallOutcomes)[number];

/** Action calls per action (the metrics keep their labels bounded: the busiest actions, then "other"). */
export interface ActionCallMetrics {
  /** A call ended; `durationMs` for the calls that were made (succeeded or failed), null otherwise. */
  callEnded(actionId: string, outcome: ActionCallOutcome, durationMs: number | null): void;
}
export const noopActionCallMetrics: ActionCallMetrics = { callEnded: () => {} };
