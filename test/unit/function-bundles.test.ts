import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { deployBuildOptions } from '../../infra/bundling';
import { type BundleRun, FunctionBundles } from '../../infra/function-bundles';

/*
 * The synth's bundle cache: a function is built again exactly when something it is built from changed in
 * content (an input, a file beside one, an option, the lockfile), never because a file was merely touched.
 */

let root: string;
let cache: string;

const write = (path: string, text: string): void => {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), text);
};

/** One synth's worth of bundling (each synth is a new process, so a new instance). */
const run = (options = deployBuildOptions(root)): BundleRun =>
  new FunctionBundles(root, cache, options).bundle(['say-hello', 'say-bye']);

const bundleText = (result: BundleRun, name: string): string =>
  readFileSync(join(result.bundles[name]?.dir ?? '', 'index.mjs'), 'utf8');

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'function-bundles-'));
  cache = join(root, 'node_modules/.cache/function-bundles');
  write('package.json', '{"type":"module"}\n');
  write('package-lock.json', '{"lockfileVersion":3,"packages":{}}\n');
  write('lib/greet.ts', 'export const greet = (name: string): string => `hello ${name}`;\n');
  write(
    'functions/say-hello/handler.ts',
    "import { greet } from '../../lib/greet';\nexport const handler = async () => greet('you');\n",
  );
  write('functions/say-bye/handler.ts', "export const handler = async () => 'bye';\n");
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('FunctionBundles', () => {
  it('builds every function the first time, then none while nothing changed', () => {
    const first = run();
    expect(first.built.sort()).toEqual(['say-bye', 'say-hello']);
    expect(bundleText(first, 'say-hello')).toContain('hello ');
    const second = run();
    expect(second.built).toEqual([]);
    expect(second.bundles).toEqual(first.bundles);
  });

  it('rebuilds nothing when a file is touched or saved again unchanged', () => {
    const first = run();
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'lib/greet.ts'), later, later);
    write('functions/say-bye/handler.ts', "export const handler = async () => 'bye';\n");
    expect(run()).toEqual({ bundles: first.bundles, built: [] });
  });

  it('rebuilds exactly the functions whose inputs changed in content', () => {
    const first = run();
    write('lib/greet.ts', 'export const greet = (name: string): string => `welcome ${name}`;\n');
    const second = run();
    expect(second.built).toEqual(['say-hello']);
    expect(bundleText(second, 'say-hello')).toContain('welcome ');
    expect(second.bundles['say-hello']?.digest).not.toBe(first.bundles['say-hello']?.digest);
    expect(second.bundles['say-bye']).toEqual(first.bundles['say-bye']);
  });

  it('rebuilds when a new file beside an input may change what an import resolves to', () => {
    run();
    // esbuild tries .tsx before .ts: `../../lib/greet` now means this file.
    write('lib/greet.tsx', 'export const greet = (name: string): string => `hi ${name}`;\n');
    const second = run();
    expect(second.built).toEqual(['say-hello']);
    expect(bundleText(second, 'say-hello')).toContain('hi ');
  });

  it('rebuilds every function when a build option, the lockfile or tsconfig.json changes', () => {
    run();
    const unminified = run({ ...deployBuildOptions(root), minify: false });
    expect(unminified.built.sort()).toEqual(['say-bye', 'say-hello']);
    expect(run().built.sort()).toEqual(['say-bye', 'say-hello']);
    write('package-lock.json', '{"lockfileVersion":3,"packages":{"node_modules/x":{"version":"2.0.0"}}}\n');
    expect(run().built.sort()).toEqual(['say-bye', 'say-hello']);
    write('tsconfig.json', '{"compilerOptions":{"target":"ES2022"}}\n');
    expect(run().built.sort()).toEqual(['say-bye', 'say-hello']);
    expect(run().built).toEqual([]);
  });

  it('rebuilds a bundle altered in the cache instead of deploying it', () => {
    const first = run();
    const file = join(first.bundles['say-bye']?.dir ?? '', 'index.mjs');
    writeFileSync(file, 'export const handler = async () => "tampered";\n');
    const second = run();
    expect(second.built).toEqual(['say-bye']);
    expect(readFileSync(file, 'utf8')).not.toContain('tampered');
  });

  it('builds each bundle byte for byte as a build of its entry alone', () => {
    const result = run();
    for (const name of ['say-hello', 'say-bye']) {
      const alone = buildSync({
        ...deployBuildOptions(root),
        entryPoints: [`functions/${name}/handler.ts`],
        outfile: join(root, 'alone', name, 'index.mjs'),
        write: false,
      });
      expect(bundleText(result, name)).toBe(alone.outputFiles[0]?.text);
    }
  });

  it('rebuilds a function whose record is cut short or edited by hand, touching nothing outside the cache', () => {
    run();
    const records = join(cache, 'records');
    writeFileSync(join(records, 'say-bye.json'), '{"version":1,"inputs":');
    writeFileSync(
      join(records, 'say-hello.json'),
      JSON.stringify({ version: 1, settings: 'x', inputs: null, dirs: null, digest: '../../../lib' }),
    );
    expect(run().built.sort()).toEqual(['say-bye', 'say-hello']);
    expect(readFileSync(join(root, 'lib/greet.ts'), 'utf8')).toContain('hello');
    expect(run().built).toEqual([]);
  });

  it('removes the bundle a rebuilt function replaced', () => {
    const first = run();
    write('functions/say-bye/handler.ts', "export const handler = async () => 'farewell';\n");
    run();
    expect(() => readFileSync(join(first.bundles['say-bye']?.dir ?? '', 'index.mjs'))).toThrow();
  });
});
