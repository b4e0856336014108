// A company's actions: HTTP calls to its own systems an agent may make while it answers.
import { query, request, type RequestOptions } from './client.js';
import type { ActionChanges, ActionCreate, ActionMethod, ActionPage, ActionParameter, ActionTest, ActionTestBody, ActionView, IdentitySource, Reply, actions } from './serverTypes.js';

export type { ActionMethod, ActionParameter, ActionTest, IdentitySource };
export type ActionMode = ActionView['mode'];
export type ParameterType = ActionParameter['type'];
export type TeamRole = NonNullable<ActionView['approverRoles']>[number];

/** One label per source the definition accepts: a Record, so a source added or dropped on the server fails the type-check. */
const IDENTITY_SOURCE_LABELS: Record<IdentitySource, string> = {
  'platform.clientId': "Platform customer's client id",
  'webchat.userId': "Web-chat visitor's verified user id",
  'webchat.email': "Web-chat visitor's verified email",
};
export const IDENTITY_SOURCES = (Object.keys(IDENTITY_SOURCE_LABELS) as IdentitySource[]).map((value) => ({ value, label: IDENTITY_SOURCE_LABELS[value] }));

/** An action as the server answers it; its method is one the definition accepts (the answer's schema says only string). */
export type Action = Omit<ActionView, 'method'> & { method: ActionMethod };
/** A route's answer with its action narrowed to Action (the wrapper key stays the route's). */
type WithAction<R extends { action: ActionView }> = Omit<R, 'action'> & { action: Action };

/** The form's fields: a create body, with headers as an edit sends them (one without `value` keeps the value it has). */
export type ActionInput = Omit<ActionCreate, 'headers'> & Pick<ActionChanges, 'headers'>;

const base = (id: string) => `/api/actions/${encodeURIComponent(id)}`;

export async function listAllActions(o?: RequestOptions): Promise<Action[]> {
  const all: Action[] = [];
  let cursor: string | null = null;
  do {
    const page: Omit<ActionPage, 'actions'> & { actions: Action[] } = await request('GET', `/api/actions${query({ limit: 200, cursor })}`, undefined, o);
    all.push(...page.actions);
    cursor = page.nextCursor;
  } while (cursor);
  return all;
}

export const getAction = async (id: string, o?: RequestOptions) => (await request<WithAction<Reply<typeof actions.getActionSchema>>>('GET', base(id), undefined, o)).action;
export const createAction = async (input: ActionInput) => (await request<WithAction<Reply<typeof actions.createActionSchema, 201>>>('POST', '/api/actions', input)).action;
export const updateAction = async (id: string, input: ActionChanges) => (await request<WithAction<Reply<typeof actions.updateActionSchema>>>('PATCH', base(id), input)).action;
export const deleteAction = (id: string) => request<void>('DELETE', base(id));
export const testAction = async (id: string, input: ActionTestBody) =>
  (await request<Reply<typeof actions.testActionSchema>>('POST', `${base(id)}/test`, input)).test;
