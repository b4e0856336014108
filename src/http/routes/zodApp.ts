import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

/**
 * The fastify instance a route plugin receives (zod type provider). A plugin with many endpoints hands it to
 * one registration function per endpoint group, so no function grows past a screen.
 */
export type ZodApp = Parameters<FastifyPluginAsyncZod>[0];
