/**
 * Writes a route starts after it has answered (a webhook's log entry), so that another route of this process can
 * read them: `settled()` waits for those in flight when it is called, never for later ones, so a steady stream of
 * webhooks cannot hold a reader forever.
 */
export interface PendingWrites {
  track(write: Promise<unknown>): void;
  settled(): Promise<void>;
}

export function pendingWrites(): PendingWrites {
  const inFlight = new Set<Promise<unknown>>();
  return {
    track(write) {
      const settledWrite = write.then(
        () => undefined,
        () => undefined,
      );
      inFlight.add(settledWrite);
      void settledWrite.then(() => inFlight.delete(settledWrite));
    },
    async settled() {
      if (inFlight.size > 0) await Promise.all([...inFlight]);
    },
  };
}
