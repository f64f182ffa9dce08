import type * as Fs from 'node:fs';

/**
 * The functions' own output (log lines, metric lines), written to the process's descriptors (1: stdout, 2:
 * stderr) with `fs.writeSync`, without `process.stdout` or `process.stderr`. Those streams are made on first
 * use: for a pipe, as a Lambda's stdout is, a socket over the descriptor, made and torn down in every new
 * container whose first request logs a line (1.3-3 ms of its cold start, measured in docs/performance.md).
 * Lambda's own runtime writes its log lines the same way (to its telemetry descriptor). `node:fs` comes from
 * `process.getBuiltinModule`: an `import` of it would build its ES module namespace, which loads
 * `fs/promises` and the streams under it (about as much again).
 *
 * A host that runs functions and takes their output (the template harness's worker threads, `npm run
 * invoke`, tests) registers a writer under `Symbol.for('commerce-api.stdio')`: every line goes to it instead.
 * A write the descriptor takes in part goes on from where it stopped; one it refuses (EAGAIN: a full
 * non-blocking pipe) sends the rest of the line through its stream, and every later line too, so that lines
 * stay whole and in order.
 */

export type StdioStream = 'stdout' | 'stderr';

/** What a host registers to take the functions' output. */
export type StdioWriter = (stream: StdioStream, text: string) => void;

export const STDIO_WRITER = Symbol.for('commerce-api.stdio');

const DESCRIPTORS: Record<StdioStream, number> = { stdout: 1, stderr: 2 };

/** The descriptors written through their streams since one refused a write (see above). */
const streamed = new Set<StdioStream>();

let fs: typeof Fs | undefined;

/** `node:fs` on first use; undefined on a node without `process.getBuiltinModule` (before 20.16). */
function nodeFs(): typeof Fs | undefined {
  const get = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  if (fs === undefined && typeof get === 'function') fs = get('node:fs') as typeof Fs;
  return fs;
}

/** `fs.writeSync` as the functions use it (tests replace it to refuse or split writes). */
export const descriptors = {
  writeSync(fd: number, bytes: Uint8Array, offset: number): number {
    const writer = nodeFs();
    if (writer === undefined) throw Object.assign(new Error('no node:fs'), { code: 'ENOSYS' });
    return writer.writeSync(fd, bytes, offset);
  },
};

/** Writes `text` (whole lines, ending in a newline) to the function's stdout or stderr. */
export function writeOut(stream: StdioStream, text: string): void {
  const host = (globalThis as Record<symbol, unknown>)[STDIO_WRITER];
  if (typeof host === 'function') {
    (host as StdioWriter)(stream, text);
    return;
  }
  if (streamed.has(stream)) {
    process[stream].write(text);
    return;
  }
  const bytes = Buffer.from(text, 'utf8');
  let written = 0;
  try {
    while (written < bytes.length) {
      const n = descriptors.writeSync(DESCRIPTORS[stream], bytes, written);
      if (!(n > 0)) throw new Error('the descriptor took nothing');
      written += n;
    }
  } catch {
    // EAGAIN (a full non-blocking pipe), or no descriptor to write to: the stream takes it from here.
    streamed.add(stream);
    process[stream].write(bytes.subarray(written));
  }
}

/** Writes through the descriptors again (tests). */
export function resetStdio(): void {
  streamed.clear();
}
