import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { FUNCTIONS } from '../../functions/routes';
import { deployBuildOptions } from '../../infra/bundling';

const ROOT = join(__dirname, '../..');

/** The bundle size every function is held to (docs/performance.md), KiB. */
const MAX_BUNDLE_KIB = 350;

/** Every Lambda's code: `functions/<name>/handler.ts`, API operations, workflow steps and queue workers alike. */
const FUNCTION_NAMES = readdirSync(join(ROOT, 'functions'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(ROOT, 'functions', entry.name, 'handler.ts')))
  .map((entry) => entry.name);

/**
 * Each function bundled with the stack's settings (infra/bundling.ts), all in one esbuild run: without code
 * splitting every output is its function's whole bundle, as `cdk synth` builds it one by one.
 */
async function bundleAll(): Promise<Record<string, Metafile['outputs'][string] & { text: string }>> {
  const result = await build({
    ...deployBuildOptions(ROOT),
    entryPoints: Object.fromEntries(FUNCTION_NAMES.map((name) => [name, `functions/${name}/handler.ts`])),
    outdir: 'bundles',
    outExtension: { '.js': '.mjs' },
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const texts = new Map(result.outputFiles.map((file) => [file.path, file.text]));
  return Object.fromEntries(
    Object.entries(result.metafile.outputs).map(([file, output]) => [
      file.replace(/^bundles\//, '').replace(/\.mjs$/, ''),
      { ...output, text: texts.get(join(ROOT, file)) ?? '' },
    ]),
  );
}

describe("the functions' bundles", () => {
  let bundles: Awaited<ReturnType<typeof bundleAll>>;
  beforeAll(async () => {
    bundles = await bundleAll();
  }, 120_000);

  it('bundles every function', () => {
    expect(FUNCTION_NAMES.length).toBeGreaterThan(100);
    expect(Object.keys(bundles).sort()).toEqual([...FUNCTION_NAMES].sort());
    // The workflow's steps and the queue workers are functions too.
    expect(FUNCTION_NAMES).toEqual(
      expect.arrayContaining(['release-validate', 'release-write', 'job-run', 'integration-deliver']),
    );
  });

  it('holds no AWS SDK client: DynamoDB, S3, Step Functions and SQS go through lib/store and lib/jobs', () => {
    const withClient = Object.entries(bundles).flatMap(([name, output]) =>
      Object.keys(output.inputs).some((input) =>
        /node_modules\/@aws-sdk\/(client-[a-z0-9-]+|s3-request-presigner)\//.test(input),
      )
        ? [name]
        : [],
    );
    expect(withClient).toEqual([]);
    // Inputs are named as the pattern expects: the SDK's marshalling, which the DynamoDB client uses, is
    // seen, and so are the clients that replace the SDK's.
    const startsWorkflow = Object.keys(bundles['pcm-create-release']?.inputs ?? {});
    expect(startsWorkflow.some((input) => /node_modules\/@aws-sdk\/util-dynamodb\//.test(input))).toBe(true);
    expect(startsWorkflow).toEqual(
      expect.arrayContaining([
        'lib/store/s3-http.ts',
        'lib/store/step-functions.ts',
        'lib/store/aws-json.ts',
      ]),
    );
  });

  it("imports no node:stream/web at load: middy's one use of it goes through lib/runtime/stream-web.ts", () => {
    const loading = Object.entries(bundles).flatMap(([name, output]) =>
      output.imports.some((imported) => imported.path === 'node:stream/web') ? [name] : [],
    );
    expect(loading).toEqual([]);
    expect(Object.keys(bundles['get-currency']?.inputs ?? {})).toContain('lib/runtime/stream-web.ts');
  });

  it("reads no performance global: its first access loads node's perf_hooks, which no function needs", () => {
    const reading = Object.entries(bundles).flatMap(([name, output]) =>
      /\bperformance\s*\./.test(output.text) ? [name] : [],
    );
    expect(reading).toEqual([]);
    // The durations in the log lines come from the clock that replaces it.
    expect(Object.keys(bundles['get-currency']?.inputs ?? {})).toContain('lib/runtime/clock.ts');
    expect(Object.keys(bundles['release-write']?.inputs ?? {})).toContain('lib/runtime/clock.ts');
  });

  it("loads node's HTTP client only to deliver a webhook: AWS's APIs and the object store go over lib/store/http1.ts", () => {
    const loading = Object.entries(bundles).flatMap(([name, output]) =>
      output.imports.some((imported) => imported.path === 'node:http' || imported.path === 'node:https') &&
      !Object.keys(output.inputs).includes('lib/integrations/deliver.ts')
        ? [name]
        : [],
    );
    expect(loading).toEqual([]);
    // The import is seen where it is made, and DynamoDB's and the object store's clients reach the socket pool.
    const delivering = Object.entries(bundles).find(([, output]) =>
      Object.keys(output.inputs).includes('lib/integrations/deliver.ts'),
    );
    expect(delivering?.[1].imports.some((imported) => imported.path === 'node:http')).toBe(true);
    expect(Object.keys(bundles['get-currency']?.inputs ?? {})).toContain('lib/store/http1.ts');
    expect(Object.keys(bundles['pcm-put-catalog-document']?.inputs ?? {})).toContain('lib/store/s3-http.ts');
  });

  it("carries no copy of the release schema's JSON: the generated validator holds what it checks", () => {
    const carrying = Object.entries(bundles).flatMap(([name, output]) =>
      Object.keys(output.inputs).includes('catalog/release.schema.json') ? [name] : [],
    );
    expect(carrying).toEqual([]);
    // The steps that check documents do bundle the validator, so the input names are the ones looked for.
    expect(Object.keys(bundles['release-validate']?.inputs ?? {})).toContain(
      'lib/catalog/release-validator.generated.ts',
    );
  });

  it(`keeps every function at or under ${MAX_BUNDLE_KIB} KiB`, () => {
    const over = Object.entries(bundles)
      .filter(([, output]) => output.bytes > MAX_BUNDLE_KIB * 1024)
      .map(([name, output]) => `${name}: ${(output.bytes / 1024).toFixed(1)} KiB`);
    expect(over).toEqual([]);
  });

  it("holds its own definition of the route table and no other function's", () => {
    // A minified bundle writes a string between whichever quotes it does not contain, so each description
    // it holds appears as it is written, unless it has a backslash, a line break or all three quotes.
    const descriptions = Object.entries(FUNCTIONS).map(([name, definition]) => [
      name,
      definition.description,
    ]);
    const verbatim = (text = '') =>
      !/[\\\n]/.test(text) && !['"', "'", '`'].every((quote) => text.includes(quote));
    expect(descriptions.filter(([, text]) => !verbatim(text))).toEqual([]);
    const wrong = Object.entries(bundles).flatMap(([bundle, output]) =>
      descriptions.flatMap(([name, text]) =>
        output.text.includes(text ?? '') === (name === bundle) ? [] : [`${bundle} / ${name}`],
      ),
    );
    expect(wrong).toEqual([]);
    expect(bundles['get-currency']?.text).toContain(FUNCTIONS['get-currency'].description);
  });

  it("needs no require at run time: a bundle would carry esbuild's dynamic-require helper, which throws", () => {
    // With a CommonJS dependency that requires a module it does not bundle, esbuild's ESM output calls a
    // helper that throws 'Dynamic require of "…" is not supported' where no `require` is defined.
    const needing = Object.entries(bundles).flatMap(([name, output]) =>
      output.text.includes('Dynamic require of') ? [name] : [],
    );
    expect(needing).toEqual([]);
    expect(Object.values(bundles).some((output) => output.text.includes('createRequire'))).toBe(false);
  });
});
