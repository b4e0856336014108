import { Counter, Gauge, type Registry } from 'prom-client';
import type { ReplayMetrics } from '../../ports/metrics.js';

/**
 * `mas_replays_finished_total{outcome}`, `mas_replay_answers_total{status}` and `mas_replay_jobs_running`.
 * Every label value is known up front, so each series exists (at 0) from the first scrape: `rate()` and
 * `increase()` see the first replay, not only the second.
 */
export function createReplayMetrics(registry: Registry): ReplayMetrics {
  const finished = new Counter({
    name: 'mas_replays_finished_total',
    help: 'Replay evaluations that ended, by outcome (completed, failed, cancelled), counted by the process that recorded the end',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const answers = new Counter({
    name: 'mas_replay_answers_total',
    help: 'Customer turns a replay answered with the draft, by status (answered; failed: the LLM call failed), counted once each',
    labelNames: ['status'] as const,
    registers: [registry],
  });
  const running = new Gauge({
    name: 'mas_replay_jobs_running',
    help: "Replay jobs (one per replayed conversation) this process's replay worker is running now",
    registers: [registry],
  });
  for (const outcome of ['completed', 'failed', 'cancelled']) finished.inc({ outcome }, 0);
  for (const status of ['answered', 'failed']) answers.inc({ status }, 0);
  running.set(0);

  return {
    replayFinished: (outcome) => finished.inc({ outcome }),
    answerRecorded: (status) => answers.inc({ status }),
    jobStarted() {
      running.inc();
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        running.dec();
      };
    },
  };
}
