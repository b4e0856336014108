import { noteSharingDecider, noteSharingStream } from '../../domain/company/noteSharing/decider.js';
import type { NoteSharingState } from '../../domain/company/noteSharing/state.js';
import type { EventStore } from '../../ports/eventStore.js';
import type { CommandDeps } from '../deps.js';
import { handleCommand, loadState } from '../handleCommand.js';

/** PUT /api/settings/notes: whether the company's AI agents read its internal notes. */
export const configureNoteSharing = (deps: CommandDeps, input: { companyId: string; userId: string; shareWithAi: boolean }) =>
  handleCommand(
    deps.eventStore,
    noteSharingStream(input.companyId),
    noteSharingDecider,
    { type: 'ConfigureNoteSharing', shareWithAi: input.shareWithAi, by: `user:${input.userId}`, now: deps.clock.now().toISOString() },
    { metadata: { companyId: input.companyId, actor: `user:${input.userId}` } },
  );

/** The company's choice, from its stream (a change applies to the very next answer). */
export async function loadNoteSharing(eventStore: EventStore, companyId: string): Promise<NoteSharingState> {
  const { state } = await loadState(eventStore, noteSharingStream(companyId), noteSharingDecider);
  return state;
}
