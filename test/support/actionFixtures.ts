import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { conversationIdFor } from '../../src/commands/conversations/conversationIds.js';
import type { ActionFieldsInput } from '../../src/domain/actions/definition.js';
import { testMessageBody } from '../../src/http/platformWebhooks/inProcessWebhook.js';
import { signWebhookBody } from '../../src/http/platformWebhooks/webhookSignature.js';
import { signUp, useOpenAiLlm, type Company } from './api.js';
import type { FakeCompanyApi } from './fakeCompanyApi.js';
import type { ChatCompletionBody, FakeLlm } from './fakeLlm.js';
import type { TestServer } from './testServer.js';

/**
 * A company whose agent may call actions, on the scripted model and a fake company API: the pieces an action test
 * is written with (the action as its stream holds it, the customer's messages through the signed webhook, the
 * conversation's events).
 */

export type ModelBody = ChatCompletionBody & { tools?: { function: { name: string } }[] };
export type ConversationEventRow = { type: string; data: Record<string, unknown> };

const SECRET = 'whsec_actions_0123456789abcdef';

export function actionFixtures(ctx: { server: () => TestServer; llm: () => FakeLlm; api: () => FakeCompanyApi }) {
  /** An action of the company, as its stream holds it (the definitions API writes the same event). */
  async function defineAction(co: Company, fields: Partial<ActionFieldsInput> & { name: string }): Promise<string> {
    const actionId = randomUUID();
    const data = {
      description: 'Looks up an order by its number.',
      parameters: { type: 'object', properties: { order_id: { type: 'string', maxLength: 20 }, client_id: { type: 'string' } }, required: ['order_id', 'client_id'] },
      identity: { client_id: 'platform.clientId' },
      method: 'GET',
      urlTemplate: `${ctx.api().url}/orders/{order_id}`,
      timeoutMs: 2000,
      responseFields: ['status', 'eta'],
      maxResponseChars: 2000,
      mode: 'auto',
      sampleResponse: { status: 'sample' },
      approverRoles: null,
      holdingReply: 'A teammate needs to approve this first.',
      approvalTimeoutMinutes: 60,
      active: true,
      headers: [],
      ...fields,
      actionId,
      companyId: co.company.companyId,
      by: `user:${co.user.id}`,
      at: new Date().toISOString(),
    };
    await ctx.server().adapters.eventStore.append(`actions-${co.company.companyId}`, [{ id: randomUUID(), type: 'ActionCreated', data, metadata: { companyId: co.company.companyId } }], 'any');
    return actionId;
  }

  /** The agent's published settings name the actions (the agents API does the same through a version). */
  const setAgentActions = (co: Company, agentId: string, actionIds: string[]) =>
    ctx.server().adapters.eventStore.append(`agent-${agentId}`, [{ id: randomUUID(), type: 'AgentUpdated', data: { changes: { actionIds }, at: new Date().toISOString() }, metadata: { companyId: co.company.companyId } }], 'any');

  /** A company on the fake model whose sandbox integration's agent may call `actions`. */
  async function companyWithActions(actions: (Partial<ActionFieldsInput> & { name: string })[]): Promise<{ co: Company; integrationId: number; agentId: string; actionIds: string[] }> {
    const co = await signUp(ctx.server(), 'Acme');
    await useOpenAiLlm(co, ctx.llm().url);
    const agent = await co.call('POST', '/api/agents', { name: 'Ava', handoffMessage: 'A colleague will help.' });
    expect(agent.statusCode).toBe(201);
    const agentId = agent.json().agent.id as string;
    const actionIds = [];
    for (const a of actions) actionIds.push(await defineAction(co, a));
    await setAgentActions(co, agentId, actionIds);
    const created = await co.call('POST', '/api/integrations', { name: 'Try-out', connectorType: 'msgplatform', webhookSecret: SECRET, agentId });
    expect(created.statusCode).toBe(201);
    return { co, integrationId: created.json().integration.id as number, agentId, actionIds };
  }

  async function customerWrites(integrationId: number, clientId: string, text: string): Promise<string> {
    const body = testMessageBody(text, clientId);
    const res = await ctx.server().app.inject({ method: 'POST', url: `/api/webhook/msgplatform/${integrationId}`, payload: body, headers: { 'content-type': 'application/json', 'x-webhook-signature': signWebhookBody(body, SECRET) } });
    expect(res.statusCode).toBe(200);
    return conversationIdFor(integrationId, clientId);
  }

  const eventsOf = async (co: Company, id: string) => (await co.call('GET', `/api/conversations/${id}/events?limit=200`)).json().events as ConversationEventRow[];
  const replies = async (co: Company, id: string) => (await eventsOf(co, id)).filter((e) => e.type === 'AgentReplied');
  async function waitForReplies(co: Company, id: string, count: number): Promise<ConversationEventRow[]> {
    await expect.poll(async () => (await replies(co, id)).length, { timeout: 15_000 }).toBe(count);
    return replies(co, id);
  }
  return { defineAction, setAgentActions, companyWithActions, customerWrites, eventsOf, replies, waitForReplies };
}

/** Before each test: the fake model forgets its script and requests, the company API its requests, and answers an order lookup. */
export function resetActionFakes(llm: FakeLlm, api: FakeCompanyApi) {
  llm.reset();
  api.requests.length = 0;
  api.respond = () => ({ body: { status: 'shipped', eta: 'Friday' } });
}

export const lastMessage = (body: ModelBody) => (body.messages ?? []).at(-1) as { role: string; content: unknown } | undefined;
export const offered = (body: ModelBody, name: string) => (body.tools ?? []).some((t) => t.function.name === name);
/** The model: calls `name` with `args` while it may; once a tool result is in, answers with it. */
export const callsThenAnswers = (name: string, args: Record<string, unknown>) => (body: ModelBody) => {
  const last = lastMessage(body);
  if (last?.role === 'tool') return `From our systems: ${String(last.content)}`;
  return offered(body, name) ? { content: null, toolCalls: [{ name, arguments: JSON.stringify(args) }] } : 'I could not look that up.';
};
