import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * Lowers the calling thread's CPU priority to `nice` (0–19), leaving the process's other threads as they are.
 * On Linux a thread id is a valid setpriority(2) target, and /proc/thread-self names the caller's thread; on
 * other systems (or where it is refused) nothing changes and it answers false. Raising nice needs no privilege.
 */
export function lowerThisThreadPriority(nice: number): boolean {
  if (process.platform !== 'linux' || !Number.isInteger(nice) || nice <= 0) return false;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0) return false;
    setPriority(tid, Math.min(19, nice));
    return true;
  } catch {
    return false;
  }
}
