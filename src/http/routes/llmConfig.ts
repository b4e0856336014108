import type { FastifyBaseLogger } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { configureLlm, toLlmCommandFields, type LlmConfigInput } from '../../commands/llm/configureLlm.js';
import { loadLlmConfig } from '../../commands/llm/streamReads.js';
import { DomainError } from '../../domain/errors.js';
import { checkLlmConfig } from '../../domain/llm/decider.js';
import { type CompanyLlmConfig } from '../../domain/llm/state.js';
import { BUILTIN_MODEL, isLlmError, type LlmProvider } from '../../ports/llm.js';
import { authenticator, authOf } from '../authenticate.js';
import { HttpError, validationError } from '../errors.js';
import type { HttpServices } from '../services.js';
import { getLlmConfigSchema, llmConfigView, putLlmConfigSchema, testLlmConfigSchema } from './llmConfig.schemas.js';
import type { ZodApp } from './zodApp.js';

/** What the LLM routes need besides HttpServices: a company's configuration → its provider. */
export interface LlmServices {
  llmResolver: (config: CompanyLlmConfig) => LlmProvider;
}

/** Never lets the plain key through in a message, whatever a provider echoed back. */
const scrub = (message: string, key: string | null | undefined) =>
  key && key.length >= 4 ? message.split(key).join('[redacted]') : message;

/**
 * Same address policy as platform URLs: no loopback/private/metadata hosts unless allowed (SSRF). This is the
 * early, static half; the LLM client re-checks every resolved address when it connects (guardedFetch).
 */
function checkBaseUrl(services: HttpServices, baseUrl: string | null | undefined): void {
  if (!baseUrl) return;
  const verdict = services.checkPlatformUrl(baseUrl);
  if (!verdict.ok) throw validationError(`baseUrl: ${verdict.reason}`);
}

/** The configuration as given, once the domain's rules and the address policy accept it (else 400). */
function checked(services: HttpServices, input: LlmConfigInput): LlmConfigInput {
  try {
    checkLlmConfig({ provider: input.provider, baseUrl: input.baseUrl || null, model: input.model || null });
  } catch (err) {
    if (err instanceof DomainError) throw validationError(err.message);
    throw err;
  }
  checkBaseUrl(services, input.baseUrl);
  return input;
}

/**
 * GET/PUT /api/llm-config and POST /api/llm-config/test. The API key is sealed before it enters an event,
 * never returned (`hasApiKey`), never logged (pino redacts `apiKey`), and scrubbed from error messages.
 */
export function llmConfigRoutes(services: HttpServices & LlmServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', authenticator(services));
    registerLlmConfig(app, services);
    registerLlmConfigTest(app, services);
  };
}

function registerLlmConfig(app: ZodApp, services: HttpServices): void {
  const deps = { ...services.commands, secretBox: services.secretBox };
  app.get('/api/llm-config', { schema: getLlmConfigSchema }, async (request) => ({
    llmConfig: llmConfigView(await loadLlmConfig(services.commands.eventStore, authOf(request).companyId)),
  }));

  app.put('/api/llm-config', { schema: putLlmConfigSchema }, async (request) => {
    const auth = authOf(request);
    const input = checked(services, request.body);
    const result = await configureLlm(deps, { ...input, companyId: auth.companyId, userId: auth.userId });
    await services.waitForProjections(result.position);
    return { llmConfig: llmConfigView(result.config) };
  });
}

function registerLlmConfigTest(app: ZodApp, services: HttpServices & LlmServices): void {
  app.post('/api/llm-config/test', { schema: testLlmConfigSchema }, async (request) => {
    const config = await configToTest(services, authOf(request).companyId, request.body);
    return testConnection(services, request.log, config, request.body?.apiKey);
  });
}

/** The saved configuration, or the one in the body with the saved key only when it goes to the saved address. */
async function configToTest(services: HttpServices, companyId: string, body: LlmConfigInput | null | undefined): Promise<CompanyLlmConfig> {
  const saved = await loadLlmConfig(services.commands.eventStore, companyId);
  if (!body) {
    checkBaseUrl(services, saved.baseUrl); // the policy may have tightened since it was saved
    return saved;
  }
  const fields = toLlmCommandFields(checked(services, body), services.secretBox);
  return {
    provider: fields.provider,
    baseUrl: fields.baseUrl,
    model: fields.model,
    // The stored key only ever goes to the stored address: testing another baseUrl needs the key in the body.
    sealedApiKey: fields.apiKey !== undefined ? fields.apiKey : fields.baseUrl === saved.baseUrl ? saved.sealedApiKey : null,
  };
}

/** One call to the configured model; a failure is 502 LLM_ERROR with the plain key scrubbed from its message. */
async function testConnection(services: LlmServices, log: FastifyBaseLogger, config: CompanyLlmConfig, plainKey: string | null | undefined) {
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
    log.warn({ kind: result.error.kind, status: result.error.status }, 'LLM connection test failed');
    throw fail(result.error.message);
  }
  return { ok: true as const, model: result.models?.[0] ?? model ?? BUILTIN_MODEL, latencyMs: result.latencyMs };
}
