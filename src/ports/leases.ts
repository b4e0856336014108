/**
 * The lease port: which instance holds a stateful duty (the projections, the reactors, the timed sweeps) while
 * several processors run against one store. At most one holder at a time per name, as far as the engine can
 * tell; a lease whose holder dies (SIGKILL, a lost connection) passes on to the next instance that asks.
 *
 * A lease is an assignment of work, never the only guard of correctness: between the moment a holder's connection
 * is cut and the moment it notices (`lost`), another instance may already hold the lease, so for a moment two
 * can run the same duty. Every duty keeps its own guard for that moment (a projection's commit is refused when
 * its checkpoint moved, a reactor's effects are idempotent, a sweep's commands are decided on the stream).
 */
export interface Lease {
  readonly name: string;
  /** Resolves when the lease is no longer held (its connection died, or it could not be confirmed): stop the duty. */
  readonly lost: Promise<void>;
  /** Gives the lease up; the next instance that asks gets it. */
  release(): Promise<void>;
}

export interface Leases {
  /** The lease `name` if no one else holds it now, else null. Never waits for it: callers ask again later. */
  tryAcquire(name: string): Promise<Lease | null>;
  /** Releases every lease held through this object. */
  close(): Promise<void>;
}
