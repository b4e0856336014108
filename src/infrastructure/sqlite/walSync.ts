import { closeSync, fsync, fsyncSync, openSync } from 'node:fs';

/**
 * Makes committed WAL frames durable off the event loop.
 *
 * With synchronous=FULL, SQLite fsyncs the WAL inside every commit, on the thread that commits: under load that
 * blocking fsync was the largest single cost of the HTTP thread (a quarter of its time at 1,200 webhooks/s).
 * Instead the connection commits with synchronous=NORMAL (frames written, not yet synced) and this fsyncs the
 * WAL file on libuv's thread pool; an append resolves only after an fsync that began after its commit ended,
 * so "an append that resolved survives a power loss" holds as before. One fsync runs at a time and covers
 * every commit made before it began: commits that land while it runs wait for the next one (group sync).
 *
 * What changes: another connection may read a committed event a few hundred microseconds before it is synced.
 * Only a power loss (not a crash of this process: the page cache survives it) in that window could then drop an
 * event a reader saw; none of its appenders was ever told it was stored.
 */
export class WalSync {
  private readonly fd: number;
  private waiting: Array<(err: Error | null) => void> = [];
  private running = false;
  private idle: Array<() => void> = [];

  constructor(
    walPath: string,
    private readonly sync: (fd: number, done: (err: Error | null) => void) => void = fsync,
  ) {
    // fsync through a read-only descriptor flushes the file's pages all the same (Linux, macOS).
    this.fd = openSync(walPath, 'r');
  }

  /** Calls `settle` once every commit made so far is on disk, or with the error of the fsync that failed. */
  afterCommit(settle: (err: Error | null) => void): void {
    this.waiting.push(settle);
    if (!this.running) this.run();
  }

  private run(): void {
    const group = this.waiting.splice(0);
    this.running = true;
    this.sync(this.fd, (err) => {
      this.running = false;
      for (const settle of group) settle(err);
      if (this.waiting.length > 0) this.run();
      else for (const done of this.idle.splice(0)) done();
    });
  }

  /** Settles what waits, then releases the descriptor. */
  async close(): Promise<void> {
    if (this.running) await new Promise<void>((resolve) => this.idle.push(resolve));
    if (this.waiting.length > 0) {
      const group = this.waiting.splice(0);
      let error: Error | null = null;
      try {
        fsyncSync(this.fd);
      } catch (err) {
        error = err as Error;
      }
      for (const settle of group) settle(error);
    }
    closeSync(this.fd);
  }
}
