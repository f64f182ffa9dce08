import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const ROOT = join(__dirname, '../..');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const DEPCRUISE = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
const LAYERS = ['functions', 'lib', 'infra', 'local', 'test', 'bench', 'fuzz', 'histories'];

/** Runs the project's dependency rules (the lint step's) over `cwd`; returns the exit code and output. */
function cruise(cwd: string): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, [DEPCRUISE, '--config', CONFIG, ...LAYERS], {
    cwd,
    encoding: 'utf8',
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** A throwaway tree with one file per layer and the given extra files. */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'layers-'));
  const all: Record<string, string> = {
    'tsconfig.json': '{"compilerOptions":{"module":"preserve","moduleResolution":"bundler"}}',
    ...Object.fromEntries(LAYERS.map((layer) => [`${layer}/keep.ts`, 'export const keep = 1;\n'])),
    ...files,
  };
  for (const [path, text] of Object.entries(all)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe('dependency rules (npm run lint)', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  const run = (files: Record<string, string>) => {
    const dir = tree(files);
    dirs.push(dir);
    return cruise(dir);
  };

  it('pass the project itself', () => {
    const { status, output } = cruise(ROOT);
    expect(output).toContain('no dependency violations found');
    expect(status).toBe(0);
  });

  it('pass a tree that points one way: infra -> functions -> lib, tools -> anything', () => {
    const { status } = run({
      'lib/a.ts': 'export const a = 1;\n',
      'functions/f.ts': "import { a } from '../lib/a';\nexport const f = a;\n",
      'infra/i.ts': "import { f } from '../functions/f';\nexport const i = f;\n",
      'local/l.ts':
        "import { i } from '../infra/i';\nimport { a } from '../lib/a';\nexport const l = i + a;\n",
    });
    expect(status).toBe(0);
  });

  it.each([
    [
      'lib-is-the-ground-floor',
      'lib/a.ts',
      "import { keep } from '../infra/keep';\nexport const a = keep;\n",
    ],
    [
      'lib-is-the-ground-floor',
      'lib/a.ts',
      "import { keep } from '../functions/keep';\nexport const a = keep;\n",
    ],
    [
      'lib-is-the-ground-floor',
      'lib/a.ts',
      "import { keep } from '../local/keep';\nexport const a = keep;\n",
    ],
    [
      'lib-is-the-ground-floor',
      'lib/a.ts',
      "import { keep } from '../bench/keep';\nexport const a = keep;\n",
    ],
    [
      'lib-is-the-ground-floor',
      'lib/a.ts',
      "import { keep } from '../histories/keep';\nexport const a = keep;\n",
    ],
    [
      'functions-below-infra',
      'functions/f.ts',
      "import { keep } from '../histories/keep';\nexport const f = keep;\n",
    ],
    [
      'infra-deploys-not-tools',
      'infra/i.ts',
      "import { keep } from '../histories/keep';\nexport const i = keep;\n",
    ],
    [
      'functions-below-infra',
      'functions/f.ts',
      "import { keep } from '../infra/keep';\nexport const f = keep;\n",
    ],
    [
      'functions-below-infra',
      'functions/f.ts',
      "import { keep } from '../local/keep';\nexport const f = keep;\n",
    ],
    [
      'infra-deploys-not-tools',
      'infra/i.ts',
      "import { keep } from '../test/keep';\nexport const i = keep;\n",
    ],
    [
      'template-server-runs-the-bundles',
      'local/template/t.ts',
      "import { keep } from '../../lib/keep';\nexport const t = keep;\n",
    ],
    [
      'template-server-runs-the-bundles',
      'local/gateway.ts',
      "import { keep } from '../functions/keep';\nexport const g = keep;\n",
    ],
    ['not-to-unresolvable', 'lib/a.ts', "import { gone } from './gone';\nexport const a = gone;\n"],
  ])('fail on %s: %s importing %j', (rule, path, text) => {
    const { status, output } = run({ [path]: text });
    expect(output).toContain(`error ${rule}: ${path}`);
    expect(status).not.toBe(0);
  });

  it('fail when a function reaches Ajv, even through lib (it must stay out of Lambda bundles)', () => {
    const { status, output } = run({
      'node_modules/ajv/package.json': '{"name":"ajv","version":"0.0.0","main":"index.js"}',
      'node_modules/ajv/index.js': 'module.exports = {};\n',
      'lib/v.ts': "import Ajv from 'ajv';\nexport const v = Ajv;\n",
      'functions/f.ts': "import { v } from '../lib/v';\nexport const f = v;\n",
      'local/l.ts': "import Ajv from 'ajv';\nexport const l = Ajv;\n",
    });
    expect(output).toContain('error no-ajv-in-functions: functions/f.ts');
    expect(output).not.toContain('local/l.ts');
    expect(status).not.toBe(0);
  });

  it("fail when a workflow step reaches Ajv's compiler, and not when it reaches only its runtime helpers", () => {
    const { status, output } = run({
      'node_modules/ajv/package.json': '{"name":"ajv","version":"0.0.0","main":"index.js"}',
      'node_modules/ajv/index.js': 'module.exports = {};\n',
      'node_modules/ajv/dist/runtime/equal.js': 'module.exports = {};\n',
      'lib/v.ts': "import Ajv from 'ajv';\nexport const v = Ajv;\n",
      'lib/r.ts': "import equal from 'ajv/dist/runtime/equal';\nexport const r = equal;\n",
      'functions/release-compile/index.ts': "import { v } from '../../lib/v';\nexport const f = v;\n",
      'functions/release-check/index.ts': "import { r } from '../../lib/r';\nexport const f = r;\n",
    });
    expect(output).toContain('error no-ajv-compiler-in-functions: functions/release-compile/index.ts');
    expect(output).not.toContain('functions/release-check/index.ts');
    expect(status).not.toBe(0);
  });

  it('fail on an import cycle, even inside one layer', () => {
    const { status, output } = run({
      'lib/a.ts': "import { b } from './b';\nexport const a = () => b;\n",
      'lib/b.ts': "import { a } from './a';\nexport const b = () => a;\n",
    });
    expect(output).toContain('error no-circular');
    expect(status).not.toBe(0);
  });
});
