/**
 * The dependency direction, checked by `npm run lint` (part of `npm test`):
 * infra -> functions -> lib, while local, bench, fuzz, histories and test may import anything; no cycles anywhere.
 * docs/architecture.md explains the layers.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle: modules that need each other belong together or need a third home.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'lib-is-the-ground-floor',
      severity: 'error',
      comment: 'lib/ is shared by every function and tool; it never reaches up into what is built on it.',
      from: { path: '^lib/' },
      to: { path: '^(functions|infra|local|bench|fuzz|histories|test)/' },
    },
    {
      name: 'functions-below-infra',
      severity: 'error',
      comment: 'functions/ is what Lambda runs; it never imports the CDK app or the local and test tools.',
      from: { path: '^functions/' },
      to: { path: '^(infra|local|bench|fuzz|histories|test)/' },
    },
    {
      name: 'infra-deploys-not-tools',
      severity: 'error',
      comment:
        'infra/ deploys functions/ and lib/; the local harness, benches, fuzzer and tests are not deployed.',
      from: { path: '^infra/' },
      to: { path: '^(local|bench|fuzz|histories|test)/' },
    },
    {
      name: 'template-server-runs-the-bundles',
      severity: 'error',
      comment:
        'The template-driven local API (npm start -- --from-template) serves the bundles in cdk.out; importing ' +
        'functions/ or lib/ source, even indirectly, would let it serve something other than what deploys.',
      from: { path: '^local/(template/|gateway\\.ts$|http-event\\.ts$)' },
      to: { path: '^(functions|lib)/', reachable: true },
    },
    {
      name: 'no-ajv-in-functions',
      severity: 'error',
      comment:
        "Ajv checks release documents for the publisher, the catalog CLI and the publishing workflow's steps; API functions validate requests with lib/schema, so Ajv never enters an API Lambda bundle (cold start). The workflow's step functions (functions/release-*) validate documents and may.",
      from: { path: '^functions/', pathNot: '^functions/(release-[a-z-]+/|workflow\\.ts$)' },
      to: { path: '(^|/)node_modules/ajv/', reachable: true },
    },
    {
      name: 'no-ajv-compiler-in-functions',
      severity: 'error',
      comment:
        "The release schema is compiled ahead of time (lib/catalog/release-validator.generated.ts, npm run catalog-types): a function that validates documents reaches only Ajv's runtime helpers, never its compiler (compiling the schema cost the publishing steps about 50 ms of each cold start). Its type declarations (dist/types) are allowed.",
      from: { path: '^functions/' },
      to: {
        path: '(^|/)node_modules/ajv/',
        pathNot: '(^|/)node_modules/ajv/dist/(runtime|types)/',
        reachable: true,
      },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to nothing would fail at run time.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(cdk\\.out|\\.data|coverage)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
    moduleSystems: ['es6', 'cjs'],
  },
};
