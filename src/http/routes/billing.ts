import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { creditsWithLedger } from '../../projections/credits/queries.js';
import { companyPipeline } from '../../projections/pipelines/queries.js';
import { authenticator, authOf } from '../authenticate.js';
import type { HttpServices } from '../services.js';
import { creditsRouteSchema, creditsView, pipelineSchema } from './billing.schemas.js';

/** Credits and the sales pipeline: read from their projections. */
export function billingRoutes(services: HttpServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', authenticator(services));

    app.get('/api/credits', { schema: creditsRouteSchema }, async (request) =>
      creditsView(await creditsWithLedger(services.readStore, authOf(request).companyId, request.query)),
    );

    app.get('/api/pipeline', { schema: pipelineSchema }, async (request) => {
      const { companyId } = authOf(request);
      const doc = await companyPipeline(services.readStore, companyId);
      return { pipeline: { id: doc?.pipelineId ?? companyId, stages: doc?.stages ?? [] } };
    });
  };
}
