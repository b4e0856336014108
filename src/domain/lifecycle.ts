/**
 * The one "does it exist" shape of a record-like aggregate's state (agents, integrations, knowledge documents,
 * API tokens; users and teams use the same words): `none` before its first event, `active` while it exists,
 * `deleted` once deleted or revoked (its stream keeps the history). An aggregate adds a state only for a fact
 * none of these says (a knowledge document's `abandoned` upload). State only: events keep their stored data.
 *
 * `active` says the record exists, nothing more: an integration's own `active` setting (switched off by its
 * owner) is a separate field.
 */
export type Lifecycle = 'none' | 'active' | 'deleted';

/** A state narrowed to its existing (`active`) member. */
export type Active<S extends { status: string }> = S & { status: 'active' };

export const isActive = <S extends { status: string }>(state: S): state is Active<S> => state.status === 'active';

/** The state a create or update just produced: `active` by construction, checked here instead of cast. */
export function expectActive<S extends { status: string }>(state: S, what: string): Active<S> {
  if (!isActive(state)) throw new Error(`${what} is ${state.status} right after a change that keeps it active`);
  return state;
}
