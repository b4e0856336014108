import { createHash } from 'node:crypto';
import type { Bus, BusSubscription } from '../../ports/bus.js';
import type { Logger } from '../../ports/logger.js';

/**
 * Which processor serves which outbound webhook endpoint, when several run. Each processor says on the bus every
 * `heartbeatMs` that it is alive (plain broadcast: nothing stored), and an endpoint belongs to the live processor
 * whose hash with the endpoint's id is highest (rendezvous hashing): every processor computes the same owner from
 * the same members, an endpoint moves only when its owner leaves or a processor joins that wins it, and the
 * endpoints spread evenly. A processor that stops saying it is alive (SIGKILL, a lost connection) is dropped after
 * `heartbeatMs × 3`, and its endpoints go to the others: they read the endpoint's recorded progress, so what it had
 * delivered but not recorded yet goes again, under the same `webhook-id` (at least once, never lost).
 *
 * The members can disagree for a moment (a processor joining, the bus down): then an endpoint may be served by two
 * of them, which sends some events twice under the same `webhook-id`, and the progress append, guarded by its
 * revision, lets only one of them record it (the other forgets what it kept and reads it again). A processor
 * serves nothing for its first `heartbeatMs / 2`, the time the others take to answer its first heartbeat, so
 * starting one does not double the deliveries of the running ones.
 */

export const WEBHOOK_MEMBERS_SUBJECT = 'webhooks.members';

export interface EndpointOwners {
  /** Whether this processor serves the endpoint now. */
  owns(endpointId: string): boolean;
  /** The live processors' ids, sorted (this one included). */
  members(): string[];
  /** Changes each time the members change (the worker lets go of the endpoints it no longer owns). */
  version(): number;
  stop(): Promise<void>;
}

interface Heartbeat {
  id: string;
  /** Leaving: the others drop it at once instead of waiting for it to go stale. */
  leaving?: boolean;
}

const score = (member: string, endpointId: string) => createHash('sha1').update(member).update('\0').update(endpointId).digest().readUInt32BE(0);

/** The live member whose hash with the endpoint's id is highest. */
export function ownerOf(members: readonly string[], endpointId: string): string | undefined {
  let best: string | undefined;
  let bestScore = -1;
  for (const m of members) {
    const s = score(m, endpointId);
    if (s > bestScore || (s === bestScore && best !== undefined && m < best)) [best, bestScore] = [m, s];
  }
  return best;
}

export async function startEndpointOwners(options: { bus: Bus; instanceId: string; heartbeatMs: number; logger: Logger; now?: () => number }): Promise<EndpointOwners> {
  const { bus, instanceId, heartbeatMs, logger } = options;
  const now = options.now ?? Date.now;
  const lastSeen = new Map<string, number>();
  const startedAt = now();
  let current: string[] = [instanceId];
  let version = 0;
  const owners = new Map<string, boolean>();

  const refresh = () => {
    const t = now();
    for (const [id, at] of lastSeen) if (t - at > heartbeatMs * 3) lastSeen.delete(id);
    const next = [...new Set([instanceId, ...lastSeen.keys()])].sort();
    if (next.join(',') !== current.join(',')) {
      logger.info({ members: next.length, was: current.length }, 'outbound webhook processors changed; endpoints are shared again');
      current = next;
      version++;
      owners.clear();
    }
  };
  const beat = (leaving = false) =>
    bus.broadcast<Heartbeat>(WEBHOOK_MEMBERS_SUBJECT, leaving ? { id: instanceId, leaving } : { id: instanceId }).catch((err) => logger.warn({ err }, 'could not tell the other processors this one serves webhooks; they may serve its endpoints too'));

  let subscription: BusSubscription | null = null;
  subscription = await bus.listen<Heartbeat>(WEBHOOK_MEMBERS_SUBJECT, (hb) => {
    if (!hb || typeof hb.id !== 'string' || hb.id === instanceId) return;
    const isNew = !lastSeen.has(hb.id);
    if (hb.leaving) lastSeen.delete(hb.id);
    else lastSeen.set(hb.id, now());
    // A newcomer learns of this one at once rather than a heartbeat later.
    if (isNew && !hb.leaving) void beat();
    refresh();
  });
  void beat();
  const timer = setInterval(() => {
    void beat();
    refresh();
  }, heartbeatMs);
  timer.unref();

  return {
    owns(endpointId) {
      if (now() - startedAt < heartbeatMs / 2) return false;
      refresh();
      let mine = owners.get(endpointId);
      if (mine === undefined) owners.set(endpointId, (mine = ownerOf(current, endpointId) === instanceId));
      return mine;
    },
    members: () => [...current],
    version: () => version,
    async stop() {
      clearInterval(timer);
      await beat(true);
      await subscription?.stop();
    },
  };
}

/** One processor alone (no bus to meet others on): it serves every endpoint. */
export const soleOwner: EndpointOwners = { owns: () => true, members: () => [], version: () => 0, stop: async () => undefined };
