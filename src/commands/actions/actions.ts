import { randomUUID } from 'node:crypto';
import { actionsDecider, actionsStream, type ActionCommand, type SealedHeaderChange } from '../../domain/actions/decider.js';
import type { ActionFieldsInput } from '../../domain/actions/definition.js';
import type { SecretBox } from '../../ports/secretBox.js';
import type { CommandDeps } from '../deps.js';
import { handleCommand } from '../handleCommand.js';

/** Create, update and delete a company's actions (one `actions-<companyId>` stream). */

type Deps = CommandDeps & { secretBox: SecretBox };
type Actor = { companyId: string; userId: string };
/** Header values as a teammate types them: sealed here, before the command, so no event ever holds one in plain text. */
export type PlainHeader = { name: string; value: string };
/** On update a header without a value keeps the one it has. */
export type PlainHeaderChange = { name: string; value?: string };

const metadataOf = (actor: Actor) => ({ companyId: actor.companyId, actor: `user:${actor.userId}` });

function run(deps: CommandDeps, actor: Actor, command: ActionCommand) {
  return handleCommand(deps.eventStore, actionsStream(actor.companyId), actionsDecider, command, { metadata: metadataOf(actor) });
}

export async function createAction(deps: Deps, actor: Actor, input: { fields: ActionFieldsInput; headers: PlainHeader[] }) {
  const actionId = randomUUID();
  const headers = input.headers.map((h) => ({ name: h.name, sealedValue: deps.secretBox.seal(h.value) }));
  const result = await run(deps, actor, {
    type: 'CreateAction',
    companyId: actor.companyId,
    actionId,
    fields: input.fields,
    headers,
    by: `user:${actor.userId}`,
    now: deps.clock.now().toISOString(),
  });
  return { ...result, action: result.state.actions.get(actionId)! };
}

export async function updateAction(deps: Deps, actor: Actor, actionId: string, input: { changes: Partial<ActionFieldsInput>; headers?: PlainHeaderChange[] }) {
  const headers: SealedHeaderChange[] | undefined = input.headers?.map((h) =>
    h.value === undefined ? { name: h.name } : { name: h.name, sealedValue: deps.secretBox.seal(h.value) },
  );
  const result = await run(deps, actor, {
    type: 'UpdateAction',
    companyId: actor.companyId,
    actionId,
    changes: input.changes,
    ...(headers ? { headers } : {}),
    by: `user:${actor.userId}`,
    now: deps.clock.now().toISOString(),
  });
  return { ...result, action: result.state.actions.get(actionId)! };
}

export async function deleteAction(deps: CommandDeps, actor: Actor, actionId: string) {
  return run(deps, actor, { type: 'DeleteAction', companyId: actor.companyId, actionId, by: `user:${actor.userId}`, now: deps.clock.now().toISOString() });
}
