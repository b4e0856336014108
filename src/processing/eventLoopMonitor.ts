import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface EventLoopDelay {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Length of the window these figures cover. */
  windowMs: number;
}

/**
 * Event-loop delay of this thread over a rolling window (the current one, and the previous whole one when
 * it is fresher news), so a stall shows in /readyz for a while after it happened.
 */
export function startEventLoopMonitor(windowMs = 60_000) {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  let windowStart = Date.now();
  let previous: EventLoopDelay | null = null;
  const read = (): EventLoopDelay => ({
    p50Ms: round(histogram.percentile(50) / 1e6),
    p99Ms: round(histogram.percentile(99) / 1e6),
    maxMs: round(histogram.max / 1e6),
    windowMs: Date.now() - windowStart,
  });
  const timer = setInterval(() => {
    previous = read();
    histogram.reset();
    windowStart = Date.now();
  }, windowMs);
  timer.unref();
  return {
    snapshot(): EventLoopDelay {
      const current = read();
      return previous && current.windowMs < windowMs / 2 && previous.maxMs > current.maxMs ? previous : current;
    },
    stop() {
      clearInterval(timer);
      histogram.disable();
    },
  };
}

const round = (ms: number) => (Number.isFinite(ms) ? Math.round(ms * 10) / 10 : 0);
