import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordSources, sourceDigests, staleReason } from '../../local/template/synth';

/*
 * When `npm start -- --from-template` synthesizes the stack again: when what it was built from changed in
 * content, not when a file was merely saved or restored unchanged.
 */

let root: string;
let outdir: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'synth-staleness-'));
  outdir = join(root, 'cdk.out');
  mkdirSync(join(root, 'functions/list-things'), { recursive: true });
  mkdirSync(join(root, 'lib'), { recursive: true });
  writeFileSync(join(root, 'functions/list-things/handler.ts'), 'export const handler = 1;\n');
  writeFileSync(join(root, 'lib/index.ts'), 'export const a = 1;\n');
  writeFileSync(join(root, 'package.json'), '{}\n');
  mkdirSync(outdir);
  writeFileSync(join(outdir, 'manifest.json'), '{}');
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('staleReason', () => {
  it('asks for a synth when the assembly is missing or has no record of its sources', () => {
    expect(staleReason(root, join(root, 'elsewhere'))).toBe(`${join(root, 'elsewhere')} is missing`);
    expect(staleReason(root, outdir)).toBe(`${outdir} has no record of its sources`);
  });

  it('keeps the assembly when a file is saved or restored unchanged, however new its time', () => {
    recordSources(outdir, sourceDigests(root));
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'functions/list-things/handler.ts'), later, later);
    writeFileSync(join(root, 'lib/index.ts'), 'export const a = 2;\n');
    writeFileSync(join(root, 'lib/index.ts'), 'export const a = 1;\n');
    expect(staleReason(root, outdir)).toBeUndefined();
  });

  it('names the source whose content changed, a new file and a deleted one included', () => {
    recordSources(outdir, sourceDigests(root));
    writeFileSync(join(root, 'functions/list-things/handler.ts'), 'export const handler = 2;\n');
    expect(staleReason(root, outdir)).toBe('functions changed since the last synth');
    recordSources(outdir, sourceDigests(root));
    writeFileSync(join(root, 'lib/new.ts'), '\n');
    expect(staleReason(root, outdir)).toBe('lib changed since the last synth');
    recordSources(outdir, sourceDigests(root));
    rmSync(join(root, 'lib/new.ts'));
    expect(staleReason(root, outdir)).toBe('lib changed since the last synth');
  });

  it('tells a renamed file from an unchanged tree', () => {
    recordSources(outdir, sourceDigests(root));
    rmSync(join(root, 'lib/index.ts'));
    writeFileSync(join(root, 'lib/other.ts'), 'export const a = 1;\n');
    expect(staleReason(root, outdir)).toBe('lib changed since the last synth');
  });
});
