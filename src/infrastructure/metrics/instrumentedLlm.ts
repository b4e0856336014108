import { Counter, Histogram, type Registry } from 'prom-client';
import { isLlmError, type LlmResolver } from '../../ports/llm.js';

/**
 * `mas_llm_request_duration_seconds{provider, outcome}` and `mas_llm_errors_total{provider, reason}` around every
 * completion (each attempt: the reply worker's retries are separate calls). `reason` is the LlmError kind.
 */
export function createLlmInstrumentation(registry: Registry) {
  const duration = new Histogram({
    name: 'mas_llm_request_duration_seconds',
    help: 'Duration of one LLM completion call, by provider (builtin, openai) and outcome (ok, error)',
    labelNames: ['provider', 'outcome'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60],
    registers: [registry],
  });
  const errors = new Counter({
    name: 'mas_llm_errors_total',
    help: 'Failed LLM completion calls, by provider and reason (timeout, rate_limited, server_error, bad_response, auth, unreachable, invalid_request, aborted, unknown)',
    labelNames: ['provider', 'reason'] as const,
    registers: [registry],
  });

  return (resolve: LlmResolver): LlmResolver =>
    (config) => {
      const provider = resolve(config);
      const labels = { provider: config.provider };
      return {
        // The builtin provider stays free when measured (its answers are never charged).
        ...(provider.free ? { free: true as const } : {}),
        testConnection: (options) => provider.testConnection(options),
        async complete(request) {
          const end = duration.startTimer(labels);
          try {
            const response = await provider.complete(request);
            end({ outcome: 'ok' });
            return response;
          } catch (err) {
            end({ outcome: 'error' });
            errors.inc({ ...labels, reason: isLlmError(err) ? err.kind : 'unknown' });
            throw err;
          }
        },
      };
    };
}
