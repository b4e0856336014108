/**
 * The import rules of src/ (CONTRIBUTING.md, "Dependency direction") and of the dashboard's imports from it, checked by
 * dependency-cruiser:
 *   npx depcruise src web        (or: npx vitest run test/unit/importRules.test.ts, which `npm test` runs)
 *
 * The flow is  http, workers, processing, infrastructure → commands, projections → domain,  with the ports
 * (src/ports: interfaces, contract constants and error classes) usable by every layer above the domain, and
 * src/shared (pure code with no home in one layer, e.g. fairness between companies) usable by every layer. The
 * composition root (src/server.ts, src/main.ts, src/processorService.ts) wires adapters into the rest.
 *
 * Type-only imports count like any other (tsPreCompilationDeps): a type is a dependency too.
 * Every exception below names its files and says why; add one only with a reason a reviewer can check.
 */

/** The composition root: the only files that may import anything. */
const root = '^src/(server|main|processorService)\\.ts$';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import circles anywhere in src/: a circle means two modules that can only be understood together.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment:
        'src/domain imports only zod and other domain files: no I/O, no framework, no ports. ' +
        'Exceptions: node:crypto, for hashing deterministic ids (pure: same input, same output, no I/O); ' +
        're2js, the RE2 regular expression engine, in src/domain/linearPattern.ts only (next rule).',
      from: { path: '^src/domain/' },
      to: { pathNot: ['^src/domain/', '(^|/)node_modules/zod/', '^(node:)?crypto$', '(^|/)node_modules/re2js/'] },
    },
    {
      name: 'domain-regex-engine-in-one-module',
      severity: 'error',
      comment:
        'The patterns companies write (action parameters, test-case matchers) are rules of the domain, decided on ' +
        'text a model or a customer chose, so they must run in linear time (as must a domain pattern that could ' +
        'backtrack on a model\'s text): re2js (a pure-JavaScript port of RE2: no I/O, no clock, same input same ' +
        'answer, like zod) is the engine. src/domain/linearPattern.ts is the one module that imports it; every ' +
        'other domain file compiles such patterns through it.',
      from: { path: '^src/domain/', pathNot: '^src/domain/linearPattern\\.ts$' },
      to: { path: '(^|/)node_modules/re2js/' },
    },
    {
      name: 'shared-is-pure',
      severity: 'error',
      comment:
        'src/shared holds pure code that more than one layer needs (fairness between companies: src/shared/fairness, ' +
        'used by the workers, the http routes and the adapters\' thread pools). It imports only other shared files ' +
        'and node builtins, so that every layer, adapters included, may import it without a rule exception.',
      from: { path: '^src/shared/' },
      to: { pathNot: ['^src/shared/'], dependencyTypesNot: ['core'] },
    },
    {
      name: 'ports-are-contracts',
      severity: 'error',
      comment:
        'src/ports holds interfaces and their contract (constants, zod schemas, error classes): it imports only other ports, the domain and zod. ' +
        'One exception, in src/ports/tracing.ts only (next rule): @opentelemetry/api, which is a port by design (a no-op API until an SDK ' +
        'registers behind it, as src/infrastructure/tracing/otel.ts does when tracing is configured).',
      from: { path: '^src/ports/' },
      to: { pathNot: ['^src/ports/', '^src/domain/', '(^|/)node_modules/zod/', '(^|/)node_modules/@opentelemetry/api/'] },
    },
    {
      name: 'tracing-api-in-one-port',
      severity: 'error',
      comment: 'The OpenTelemetry API enters the ports through src/ports/tracing.ts alone; the SDK (its implementation) is infrastructure.',
      from: { path: '^src/ports/', pathNot: '^src/ports/tracing\\.ts$' },
      to: { path: '(^|/)node_modules/@opentelemetry/' },
    },
    {
      name: 'use-cases-stay-inside',
      severity: 'error',
      comment: 'src/commands and src/projections never import http, workers, processing, infrastructure, cli, config or the composition root: they get ports injected.',
      from: { path: '^src/(commands|projections)/' },
      to: { path: ['^src/(http|workers|processing|infrastructure|cli)/', '^src/config\\.ts$', root] },
    },
    {
      name: 'adapters-not-to-delivery',
      severity: 'error',
      comment: 'src/infrastructure and src/ports never import http or workers (adapters serve the inner layers, not the other way round).',
      from: { path: '^src/(infrastructure|ports)/' },
      to: { path: '^src/(http|workers)/' },
    },
    {
      name: 'only-root-imports-http',
      severity: 'error',
      comment: 'Nothing outside src/http imports src/http except the composition root.',
      from: { path: '^src/', pathNot: ['^src/http/', root] },
      to: { path: '^src/http/' },
    },
    {
      name: 'only-root-imports-workers',
      severity: 'error',
      comment:
        'Nothing outside src/workers imports src/workers except the composition root, and: ' +
        'src/processing (the processing side starts the reactors and workers: it is their wiring); ' +
        'src/http/routes/playground.ts (the agent playground answers within the request, with the answer generation ' +
        'the reply worker uses) and src/http/routes/replays.ts (a replay estimate counts the events the replay ' +
        'worker would read).',
      from: { path: '^src/', pathNot: ['^src/workers/', '^src/processing/', root, '^src/http/routes/(playground|replays)\\.ts$'] },
      to: { path: '^src/workers/' },
    },
    {
      name: 'http-routes-take-only-these-workers',
      severity: 'error',
      comment: 'The two http exceptions above are limited to the worker modules they use today.',
      from: { path: '^src/http/' },
      to: { path: '^src/workers/', pathNot: '^src/workers/(playground/playgroundAnswer|replays/countReplayEvents)\\.ts$' },
    },
    {
      name: 'only-root-imports-infrastructure',
      severity: 'error',
      comment:
        'Only the composition root imports src/infrastructure (adapters stay swappable). Exceptions: ' +
        'src/cli/*.ts are one-shot entry points (npm scripts), each its own composition root: they may import ' +
        'infrastructure/adapters.ts and infrastructure/logger.ts only (next rule). ' +
        'src/processing is the processing side\'s composition (its own thread or process): see processing-wiring.',
      from: { path: '^src/', pathNot: ['^src/infrastructure/', root, '^src/cli/', '^src/processing/'] },
      to: { path: '^src/infrastructure/' },
    },
    {
      name: 'cli-wiring',
      severity: 'error',
      comment: 'The CLI tools build their adapters with infrastructure/adapters.ts and log with infrastructure/logger.ts, and import no other adapter.',
      from: { path: '^src/cli/' },
      to: { path: '^src/infrastructure/', pathNot: '^src/infrastructure/(adapters|logger)\\.ts$' },
    },
    {
      name: 'processing-wiring',
      severity: 'error',
      comment:
        'src/processing imports infrastructure only where it wires the processing side: processorThreadMain.ts (the ' +
        'processor thread\'s entry: adapters, logger, metrics registry) and outboundClients.ts (builds the outbound ' +
        'adapters: secret box, key file, LLM resolver, platform client). Elsewhere in src/processing only type-only ' +
        'imports (the types the root hands in) and: knowledgeIndexer.ts starts the index worker thread (knowledgeIndexHost.ts) ' +
        'that it shares with the reply workers.',
      from: { path: '^src/processing/', pathNot: '^src/processing/(processorThreadMain|outboundClients)\\.ts$' },
      to: {
        path: '^src/infrastructure/',
        pathNot: '^src/infrastructure/search/knowledgeIndexHost\\.ts$',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'nothing-imports-the-root',
      severity: 'error',
      comment: 'The composition root is the top: nothing imports it except main.ts (which starts the api and processor roles).',
      from: { path: '^src/', pathNot: '^src/main\\.ts$' },
      to: { path: root },
    },
    {
      name: 'dashboard-takes-only-server-types',
      severity: 'error',
      comment:
        'The dashboard (web/) imports nothing from src/ but types: `import type`, erased at build, so no server code ' +
        'reaches the browser bundle. The types come from the server\'s zod schemas, so a changed shape fails the type-check.',
      from: { path: '^web/' },
      to: { path: '^src/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'dashboard-server-types-from-schemas',
      severity: 'error',
      comment: 'The dashboard takes server types from the routes\' schemas (src/http/routes/*.schemas.ts) and the domain\'s (src/domain) only: the public shapes, not the server\'s internals.',
      from: { path: '^web/' },
      to: { path: '^src/', pathNot: ['^src/http/routes/[^/]+\\.schemas\\.ts$', '^src/domain/'] },
    },
    {
      name: 'dashboard-server-types-in-one-module',
      severity: 'error',
      comment: 'web/dashboard/src/api/serverTypes.ts is the one dashboard module that imports from src/, so the dependency is seen in one place.',
      from: { path: '^web/dashboard/src/', pathNot: '^web/dashboard/src/api/serverTypes\\.ts$' },
      to: { path: '^src/' },
    },
    {
      name: 'dashboard-zod-types-only',
      severity: 'error',
      comment: 'The dashboard uses zod for its types (z.infer of the server\'s schemas) only: zod is not in the browser bundle.',
      from: { path: '^web/dashboard/src/' },
      to: { path: '(^|/)node_modules/zod/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'dashboard-is-browser-code',
      severity: 'error',
      comment: 'web/dashboard/src runs in the browser: no node builtins (its tsconfig loads node\'s types for the server modules it takes types from).',
      from: { path: '^web/dashboard/src/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'Every import resolves (an import the tool cannot resolve would slip past every rule above).',
      from: { path: '^(src|web/dashboard/src)/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // The TypeScript sources, resolved like tsc does (NodeNext: `./x.js` is ./x.ts).
    tsConfig: { fileName: 'tsconfig.json' },
    // Type-only imports are dependencies too (a circle through `import type` is still a circle).
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    // Packages keep their node_modules/ path even where node_modules is a symlink (worktrees).
    preserveSymlinks: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.d.ts'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
  },
};
