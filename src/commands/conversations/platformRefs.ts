import { handleCommand } from '../handleCommand.js';
import { sha256Hex } from '../hashing.js';
import type { CommandDeps } from '../deps.js';
import { platformRefDecider, type PlatformRefKind } from '../../domain/conversations/platformRef/decider.js';

type Ref = { kind: PlatformRefKind; id: string | number };

/** Bounded stream names whatever the platform's ids look like. */
export const platformRefStream = (integrationId: number, kind: PlatformRefKind, id: string | number) =>
  `platformref-${integrationId}-${sha256Hex(`${kind}:${typeof id}:${String(id)}`).slice(0, 40)}`;

/** Links already written by this process, per store: a conversation's every message carries the same ids. Bounded. */
const MAX_KNOWN = 50_000;
const knownByStore = new WeakMap<object, Map<string, string>>();

/** Records that these platform ids belong to the conversation; a no-op (no read, no write) when this process already did. */
export async function linkPlatformRefs(deps: CommandDeps, integrationId: number, conversationId: string, refs: Ref[]): Promise<void> {
  let known = knownByStore.get(deps.eventStore);
  if (!known) knownByStore.set(deps.eventStore, (known = new Map()));
  for (const ref of refs) {
    const stream = platformRefStream(integrationId, ref.kind, ref.id);
    if (known.get(stream) === conversationId) continue;
    await handleCommand(deps.eventStore, stream, platformRefDecider, { type: 'LinkPlatformRef', conversationId, now: deps.clock.now().toISOString() }, { maxRetries: 10 });
    known.delete(stream);
    known.set(stream, conversationId);
    if (known.size > MAX_KNOWN) known.delete(known.keys().next().value!);
  }
}

/** The conversation a platform id was last linked to, by one bounded backward read per id; null when none. */
export async function findLinkedConversation(deps: Pick<CommandDeps, 'eventStore'>, integrationId: number, refs: Ref[]): Promise<string | null> {
  for (const ref of refs) {
    const [last] = await deps.eventStore.readStream(platformRefStream(integrationId, ref.kind, ref.id), { direction: 'backwards', maxCount: 1 });
    if (last) return (last.data as { conversationId: string }).conversationId;
  }
  return null;
}

export const refsOf = (platform: { requestId?: string | number | null; dialogId?: string | number | null }): Ref[] => [
  ...(platform.requestId !== undefined && platform.requestId !== null ? [{ kind: 'request' as const, id: platform.requestId }] : []),
  ...(platform.dialogId !== undefined && platform.dialogId !== null ? [{ kind: 'dialog' as const, id: platform.dialogId }] : []),
];
