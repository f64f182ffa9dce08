import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type BuildOptions, buildSync, version as esbuildVersion, type Metafile } from 'esbuild';

/** Bumped when what a record holds changes: every record of another version is stale. */
const RECORD_VERSION = 1;

/** Files of the project whose content changes what any bundle is built from, besides its own inputs. */
const PROJECT_FILES = ['package.json', 'package-lock.json', 'tsconfig.json'];

/** One function's bundle: its directory (holding `index.mjs`) and the sha256 of the bundle's bytes. */
export interface FunctionBundle {
  dir: string;
  digest: string;
}

/** What a function's bundle was built from, written beside the cache's bundles. */
interface BundleRecord {
  version: number;
  /** Digest of the build's settings: esbuild's version, its options, the entry, the project files. */
  settings: string;
  /** Every file the build read (paths relative to the root), with its sha256. */
  inputs: Record<string, string>;
  /** Every project directory holding an input, with a digest of its file names (what resolving an import sees). */
  dirs: Record<string, string>;
  /** The sha256 of the bundle it produced. */
  digest: string;
}

export interface BundleRun {
  bundles: Record<string, FunctionBundle>;
  /** The functions this run built (the others were reused from the cache). */
  built: string[];
}

const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

/**
 * Builds functions' bundles (`functions/<name>/handler.ts` → `index.mjs`) once for their content: a bundle is
 * reused while the content of everything it was built from is unchanged — each input esbuild read (its
 * metafile), the names in the project directories those inputs sit in (a new file can change what an import
 * resolves to), esbuild's version and options, package.json, the lockfile and tsconfig.json. Never by
 * modification time: a file saved or restored unchanged rebuilds nothing. The functions that must be built
 * are built in one esbuild run (many entry points, one process, shared parsing), each bundle as self-
 * contained as a build of its entry alone.
 */
export class FunctionBundles {
  /** Digests of the files read during this run, each read once (and before a build, so an edit during it shows). */
  private readonly files = new Map<string, string>();
  private readonly listings = new Map<string, string>();
  /** The bundle each function's record named when this run read it: replaced ones are removed after a build. */
  private readonly recorded = new Map<string, string>();
  private readonly settingsDigest: (entry: string) => string;

  constructor(
    private readonly root: string,
    private readonly cacheDir: string,
    private readonly options: BuildOptions,
  ) {
    const project = Object.fromEntries(PROJECT_FILES.map((file) => [file, this.fileDigest(file)]));
    const common = { version: RECORD_VERSION, esbuild: esbuildVersion, options, project };
    this.settingsDigest = (entry) => sha256(JSON.stringify({ ...common, entry }));
  }

  /** The bundles of `names`: each one reused when its inputs are unchanged, the others built together. */
  bundle(names: readonly string[]): BundleRun {
    const bundles: Record<string, FunctionBundle> = {};
    const stale: string[] = [];
    for (const name of names) {
      const fresh = this.reusable(name);
      if (fresh) bundles[name] = fresh;
      else stale.push(name);
    }
    if (stale.length > 0) Object.assign(bundles, this.build(stale));
    return { bundles, built: stale };
  }

  private entryOf(name: string): string {
    return `functions/${name}/handler.ts`;
  }

  private recordPath(name: string): string {
    return join(this.cacheDir, 'records', `${name}.json`);
  }

  private bundleDir(digest: string): string {
    return join(this.cacheDir, 'bundles', digest);
  }

  /** sha256 of a file under the root ('missing' when there is none). */
  private fileDigest(path: string): string {
    let digest = this.files.get(path);
    if (digest === undefined) {
      const full = join(this.root, path);
      digest = existsSync(full) ? sha256(readFileSync(full)) : 'missing';
      this.files.set(path, digest);
    }
    return digest;
  }

  /** Digest of a directory's entry names ('missing' when there is none). */
  private listingDigest(dir: string): string {
    let digest = this.listings.get(dir);
    if (digest === undefined) {
      const full = join(this.root, dir);
      digest = existsSync(full) ? sha256(readdirSync(full).sort().join('\n')) : 'missing';
      this.listings.set(dir, digest);
    }
    return digest;
  }

  /** The cached bundle of `name` when everything it was built from is unchanged in content. */
  private reusable(name: string): FunctionBundle | undefined {
    let record: BundleRecord;
    try {
      record = JSON.parse(readFileSync(this.recordPath(name), 'utf8')) as BundleRecord;
    } catch {
      return undefined;
    }
    // A digest names a folder of the cache: anything but a sha256 is a record to ignore, never a path to use.
    if (typeof record.digest !== 'string' || !/^[0-9a-f]{64}$/.test(record.digest)) return undefined;
    this.recorded.set(name, record.digest);
    try {
      if (record.version !== RECORD_VERSION || record.settings !== this.settingsDigest(this.entryOf(name)))
        return undefined;
      for (const [path, digest] of Object.entries(record.inputs))
        if (this.fileDigest(path) !== digest) return undefined;
      for (const [dir, digest] of Object.entries(record.dirs))
        if (this.listingDigest(dir) !== digest) return undefined;
    } catch {
      return undefined; // a record cut short or edited by hand: the function is built again
    }
    // The bundle itself is checked too: a cache edited or cut short by hand is rebuilt, not deployed.
    const dir = this.bundleDir(record.digest);
    const file = join(dir, 'index.mjs');
    if (!existsSync(file) || sha256(readFileSync(file)) !== record.digest) return undefined;
    return { dir, digest: record.digest };
  }

  /** Builds `names` in one esbuild run, stores each bundle by its digest and records what it was built from. */
  private build(names: readonly string[]): Record<string, FunctionBundle> {
    const outdir = join(this.cacheDir, 'out');
    const result = buildSync({
      ...this.options,
      entryPoints: names.map((name) => ({ in: this.entryOf(name), out: name })),
      outdir,
      outExtension: { '.js': '.mjs' },
      metafile: true,
      write: false,
      logLevel: 'error',
    });
    const contents = new Map<string, Uint8Array>();
    for (const file of result.outputFiles) contents.set(file.path, file.contents);
    const bundles: Record<string, FunctionBundle> = {};
    for (const name of names) {
      const bytes = contents.get(join(outdir, `${name}.mjs`));
      if (!bytes) throw new Error(`esbuild wrote no bundle for ${this.entryOf(name)}`);
      const digest = sha256(Buffer.from(bytes));
      const dir = this.bundleDir(digest);
      writeAtomically(join(dir, 'index.mjs'), bytes);
      const inputs: Record<string, string> = {};
      const dirs: Record<string, string> = {};
      for (const path of inputsOf(result.metafile, this.entryOf(name))) {
        inputs[path] = this.fileDigest(path);
        if (!path.split('/').includes('node_modules'))
          dirs[dirname(path)] = this.listingDigest(dirname(path));
      }
      const record: BundleRecord = {
        version: RECORD_VERSION,
        settings: this.settingsDigest(this.entryOf(name)),
        inputs,
        dirs,
        digest,
      };
      writeAtomically(this.recordPath(name), `${JSON.stringify(record)}\n`);
      bundles[name] = { dir, digest };
    }
    this.removeReplaced(names);
    return bundles;
  }

  /**
   * Removes the bundles the functions just built had before, unless a record still names one: each function
   * keeps only its latest. Only those: a bundle another synth of the project has just written is never touched.
   */
  private removeReplaced(built: readonly string[]): void {
    const replaced = new Set(
      built.map((name) => this.recorded.get(name)).filter((digest) => digest !== undefined),
    );
    if (replaced.size === 0) return;
    const records = join(this.cacheDir, 'records');
    for (const file of readdirSync(records)) {
      try {
        replaced.delete((JSON.parse(readFileSync(join(records, file), 'utf8')) as BundleRecord).digest);
      } catch {
        // an unreadable record names nothing; its function is rebuilt when next asked for
      }
    }
    for (const digest of replaced) rmSync(this.bundleDir(digest), { recursive: true, force: true });
  }
}

/** The files an entry point's bundle was built from: every input reachable from it in the metafile. */
export function inputsOf(metafile: Metafile, entry: string): string[] {
  const seen = new Set<string>();
  const pending = [entry];
  for (let path = pending.pop(); path !== undefined; path = pending.pop()) {
    if (seen.has(path)) continue;
    const input = metafile.inputs[path];
    if (!input) throw new Error(`esbuild's metafile has no input ${path}`);
    seen.add(path);
    for (const imported of input.imports) if (!imported.external) pending.push(imported.path);
  }
  return [...seen].sort();
}

/** Writes a file whole or not at all (a rename), so a concurrent reader never sees half of it. */
function writeAtomically(path: string, data: string | Uint8Array): void {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, data);
  renameSync(temporary, path);
}
