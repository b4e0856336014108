import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { configureLlm, toLlmCommandFields, type LlmConfigInput } from '../../commands/llm/configureLlm.js';
import { loadLlmConfig } from '../../commands/llm/queries.js';
import { DomainError } from '../../domain/errors.js';
import { checkLlmConfig } from '../../domain/llm/decider.js';
import { type CompanyLlmConfig } from '../../domain/llm/state.js';
import { LLM_CONFIG_LIMITS, llmProvider } from '../../domain/llm/events.js';
import { BUILTIN_MODEL, isLlmError, type LlmProvider } from '../../ports/llm.js';
import { authenticator, authOf } from '../authenticate.js';
import { HttpError, validationError } from '../errors.js';
import type { HttpServices } from '../services.js';
import { errorBody, errorResponses } from './schemas.js';

/** What the LLM routes need besides HttpServices: a company's configuration → its provider. */
export interface LlmServices {
  llmResolver: (config: CompanyLlmConfig) => LlmProvider;
}

export const llmConfigSchema = z.object({
  provider: llmProvider,
  baseUrl: z.string().nullable(),
  model: z.string().nullable(),
  hasApiKey: z.boolean(),
});

/** The key is write-only: a view says whether one is stored, never what it is. */
export const llmConfigView = (c: CompanyLlmConfig): z.infer<typeof llmConfigSchema> => ({
  provider: c.provider,
  baseUrl: c.baseUrl,
  model: c.model,
  hasApiKey: c.sealedApiKey !== null,
});

const configBody = z.strictObject({
  provider: llmProvider,
  baseUrl: z.string().trim().max(LLM_CONFIG_LIMITS.baseUrl).nullable().optional(),
  /** Write-only. Omitted: keep the stored key; null or "": remove it; a string: replace it. */
  apiKey: z.string().max(LLM_CONFIG_LIMITS.apiKey).nullable().optional(),
  model: z.string().trim().max(LLM_CONFIG_LIMITS.model).nullable().optional(),
});

/** Never lets the plain key through in a message, whatever a provider echoed back. */
const scrub = (message: string, key: string | null | undefined) =>
  key && key.length >= 4 ? message.split(key).join('[redacted]') : message;

/**
 * GET/PUT /api/llm-config and POST /api/llm-config/test. The API key is sealed before it enters an event,
 * never returned (`hasApiKey`), never logged (pino redacts `apiKey`), and scrubbed from error messages.
 */
export function llmConfigRoutes(services: HttpServices & LlmServices): FastifyPluginAsyncZod {
  const deps = { ...services.commands, secretBox: services.secretBox };

  /**
   * Same address policy as platform URLs: no loopback/private/metadata hosts unless allowed (SSRF). This is the
   * early, static half; the LLM client re-checks every resolved address when it connects (guardedFetch).
   */
  const checkBaseUrl = (baseUrl: string | null | undefined) => {
    if (!baseUrl) return;
    const verdict = services.checkPlatformUrl(baseUrl);
    if (!verdict.ok) throw validationError(`baseUrl: ${verdict.reason}`);
  };
  const checked = (input: LlmConfigInput) => {
    try {
      checkLlmConfig({ provider: input.provider, baseUrl: input.baseUrl || null, model: input.model || null });
    } catch (err) {
      if (err instanceof DomainError) throw validationError(err.message);
      throw err;
    }
    checkBaseUrl(input.baseUrl);
    return input;
  };

  return async (app) => {
    app.addHook('onRequest', authenticator(services));
    const security = [{ bearer: [] }];
    const tags = ['llm'];
    const response = z.object({ llmConfig: llmConfigSchema });

    app.get('/api/llm-config', { schema: { tags, security, response: { 200: response, ...errorResponses } } }, async (request) => ({
      llmConfig: llmConfigView(await loadLlmConfig(services.commands.eventStore, authOf(request).companyId)),
    }));

    app.put(
      '/api/llm-config',
      { schema: { tags, security, body: configBody, response: { 200: response, ...errorResponses } } },
      async (request) => {
        const auth = authOf(request);
        const input = checked(request.body);
        const result = await configureLlm(deps, { ...input, companyId: auth.companyId, userId: auth.userId });
        await services.waitForProjections(result.position);
        return { llmConfig: llmConfigView(result.config) };
      },
    );

    app.post(
      '/api/llm-config/test',
      {
        schema: {
          tags,
          security,
          description:
            'Tests the saved configuration, or the one in the body (same shape as PUT) without saving it. An omitted apiKey uses the saved key only when baseUrl is the saved one.',
          body: configBody.nullish(),
          response: { 200: z.object({ ok: z.literal(true), model: z.string(), latencyMs: z.number() }), 502: errorBody, ...errorResponses },
        },
      },
      async (request) => {
        const auth = authOf(request);
        const saved = await loadLlmConfig(services.commands.eventStore, auth.companyId);
        let config: CompanyLlmConfig = saved;
        if (request.body) {
          const fields = toLlmCommandFields(checked(request.body), services.secretBox);
          config = {
            provider: fields.provider,
            baseUrl: fields.baseUrl,
            model: fields.model,
            // The stored key only ever goes to the stored address: testing another baseUrl needs the key in the body.
            sealedApiKey: fields.apiKey !== undefined ? fields.apiKey : fields.baseUrl === saved.baseUrl ? saved.sealedApiKey : null,
          };
        } else {
          checkBaseUrl(config.baseUrl); // the policy may have tightened since it was saved
        }
        const plainKey = request.body?.apiKey;
        const fail = (message: string) => new HttpError(502, 'LLM_ERROR', scrub(message, plainKey));
        let provider: LlmProvider;
        try {
          provider = services.llmResolver(config);
        } catch (err) {
          if (isLlmError(err)) throw fail(err.message);
          throw err;
        }
        const model = config.provider === 'builtin' ? BUILTIN_MODEL : config.model ?? undefined;
        const result = await provider.testConnection(model ? { model } : {});
        if (!result.ok) {
          request.log.warn({ kind: result.error.kind, status: result.error.status }, 'LLM connection test failed');
          throw fail(result.error.message);
        }
        return { ok: true as const, model: result.models?.[0] ?? model ?? BUILTIN_MODEL, latencyMs: result.latencyMs };
      },
    );
  };
}
