import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { createAction, deleteAction, updateAction } from '../../commands/actions/actions.js';
import { loadCompanyAction } from '../../commands/actions/streamReads.js';
import { testAction } from '../../commands/actions/testAction.js';
import { listActions } from '../../projections/actions/queries.js';
import { authenticator, authOf } from '../authenticate.js';
import { notFound, validationError } from '../errors.js';
import type { HttpServices } from '../services.js';
import {
  actionView,
  createActionSchema,
  deleteActionSchema,
  fieldsOf,
  getActionSchema,
  listActionsSchema,
  testActionSchema,
  updateActionSchema,
} from './actions.schemas.js';
import type { ZodApp } from './zodApp.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const parseActionId = (raw: string) => {
  if (!UUID.test(raw)) throw notFound('Action');
  return raw.toLowerCase();
};
const actorOf = (auth: { companyId: string; userId: string }) => ({ companyId: auth.companyId, userId: auth.userId });

/**
 * The outbound guard's static check of the template's address (scheme, literal addresses), with each `{name}` as a
 * plain word: the domain keeps parameters out of the host, and every call checks the resolved address again.
 */
function checkUrlTemplate(services: HttpServices, template: string | undefined): void {
  if (template === undefined) return;
  const verdict = services.checkPlatformUrl(template.replace(/\{([^{}]*)\}/g, 'x'));
  if (!verdict.ok) throw validationError(`urlTemplate: ${verdict.reason}`);
}

/** GET/POST /api/actions, GET/PATCH/DELETE /api/actions/:id, POST /api/actions/:id/test. */
export function actionRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', authenticator(services));
    registerActionList(app, services);
    registerAction(app, services);
    registerActionTest(app, services);
  };
}

function registerActionList(app: ZodApp, services: HttpServices): void {
  app.get('/api/actions', { schema: listActionsSchema }, async (request) => {
    const page = await listActions(services.readStore, authOf(request).companyId, request.query);
    return { actions: page.items.map(actionView), nextCursor: page.nextCursor };
  });

  app.post('/api/actions', { schema: createActionSchema }, async (request, reply) => {
    checkUrlTemplate(services, request.body.urlTemplate);
    const deps = { ...services.commands, secretBox: services.secretBox };
    const result = await createAction(deps, actorOf(authOf(request)), { fields: fieldsOf(request.body), headers: request.body.headers });
    await services.waitForProjections(result.position);
    return reply.status(201).send({ action: actionView(result.action) });
  });
}

function registerAction(app: ZodApp, services: HttpServices): void {
  app.get('/api/actions/:id', { schema: getActionSchema }, async (request) => {
    const found = await loadCompanyAction(services.commands.eventStore, authOf(request).companyId, parseActionId(request.params.id));
    if (!found) throw notFound('Action');
    return { action: actionView(found) };
  });

  app.patch('/api/actions/:id', { schema: updateActionSchema }, async (request) => {
    const actionId = parseActionId(request.params.id);
    checkUrlTemplate(services, request.body.urlTemplate);
    const deps = { ...services.commands, secretBox: services.secretBox };
    const { headers } = request.body;
    const result = await updateAction(deps, actorOf(authOf(request)), actionId, { changes: fieldsOf(request.body), ...(headers ? { headers } : {}) });
    await services.waitForProjections(result.position);
    return { action: actionView(result.action) };
  });

  app.delete('/api/actions/:id', { schema: deleteActionSchema }, async (request, reply) => {
    const result = await deleteAction(services.commands, actorOf(authOf(request)), parseActionId(request.params.id));
    await services.waitForProjections(result.position);
    return reply.status(204).send(null);
  });
}

function registerActionTest(app: ZodApp, services: HttpServices): void {
  app.post('/api/actions/:id/test', { schema: testActionSchema }, async (request) => {
    const deps = { eventStore: services.commands.eventStore, secretBox: services.secretBox, actionCaller: services.actionCaller };
    const test = await testAction(deps, authOf(request).companyId, parseActionId(request.params.id), request.body);
    return { test };
  });
}
