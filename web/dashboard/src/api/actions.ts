// A company's actions: HTTP calls to its own systems an agent may make while it answers.
import { query, request, type RequestOptions } from './client.js';

export type ActionMode = 'auto' | 'confirm' | 'approve';
export type ActionMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type ParameterType = 'string' | 'number' | 'integer' | 'boolean';
export type IdentitySource = 'platform.clientId' | 'webchat.userId' | 'webchat.email';
export type TeamRole = 'owner' | 'admin' | 'agent';

export const IDENTITY_SOURCES: { value: IdentitySource; label: string }[] = [
  { value: 'platform.clientId', label: "Platform customer's client id" },
  { value: 'webchat.userId', label: "Web-chat visitor's verified user id" },
  { value: 'webchat.email', label: "Web-chat visitor's verified email" },
];

export interface ActionParameter {
  type: ParameterType;
  description?: string;
  enum?: (string | number)[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  pattern?: string;
}

export interface Action {
  id: string;
  name: string;
  description: string;
  parameters: { type: 'object'; properties: Record<string, ActionParameter>; required: string[] };
  identity: Record<string, IdentitySource>;
  method: ActionMethod;
  urlTemplate: string;
  /** Names only: values are write-only. */
  headers: { name: string; valueSet: true }[];
  timeoutMs: number;
  responseFields: string[];
  maxResponseChars: number;
  mode: ActionMode;
  sampleResponse: unknown;
  approverRoles: TeamRole[] | null;
  holdingReply: string;
  approvalTimeoutMinutes: number;
  active: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface ActionInput {
  name: string;
  description: string;
  parameters: Action['parameters'];
  identity: Action['identity'];
  method: ActionMethod;
  urlTemplate: string;
  /** A header without `value` keeps the value it has (on edit). */
  headers: { name: string; value?: string }[];
  timeoutMs: number;
  responseFields: string[];
  maxResponseChars?: number;
  mode: ActionMode;
  sampleResponse: unknown;
  approverRoles?: TeamRole[] | null;
  holdingReply?: string;
  approvalTimeoutMinutes?: number;
  active: boolean;
}

export interface ActionTest {
  ok: boolean;
  status: number | null;
  durationMs: number;
  request: { method: string; url: string; parameters: Record<string, string | number | boolean> };
  raw: string | null;
  mapped: string | null;
  error: string | null;
}

const base = (id: string) => `/api/actions/${encodeURIComponent(id)}`;

export async function listAllActions(o?: RequestOptions): Promise<Action[]> {
  const all: Action[] = [];
  let cursor: string | null = null;
  do {
    const page: { actions: Action[]; nextCursor: string | null } = await request('GET', `/api/actions${query({ limit: 200, cursor })}`, undefined, o);
    all.push(...page.actions);
    cursor = page.nextCursor;
  } while (cursor);
  return all;
}

export const getAction = async (id: string, o?: RequestOptions) => (await request<{ action: Action }>('GET', base(id), undefined, o)).action;
export const createAction = async (input: ActionInput) => (await request<{ action: Action }>('POST', '/api/actions', input)).action;
export const updateAction = async (id: string, input: Partial<ActionInput>) => (await request<{ action: Action }>('PATCH', base(id), input)).action;
export const deleteAction = (id: string) => request<void>('DELETE', base(id));
export const testAction = async (id: string, input: { parameters?: Record<string, string | number | boolean>; identity?: Partial<Record<IdentitySource, string>> }) =>
  (await request<{ test: ActionTest }>('POST', `${base(id)}/test`, input)).test;
