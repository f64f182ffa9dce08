import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/**
 * What a cold invocation waits on, counted rather than timed (counts do not move with the machine's
 * speed): for each traced process, how many requests it sent and how many of them it sent one after
 * another (the longest chain of requests each sent after the one before it was answered). Trace a run,
 * then count:
 *
 *   REQUEST_TRACE=/tmp/requests.log BENCH_COLD_NODE_ARGS="--require $PWD/bench/trace-requests.cjs" \
 *     npm run bench -- --stage cold_start --functions release-merge,pcm-get-release --runs 1
 *   npx tsx bench/request-depth.ts /tmp/requests.log
 */

/** One traced request: its process's bundle and id, and when it was sent and answered (ms). */
export interface TracedRequest {
  bundle: string;
  pid: number;
  operation: string;
  sent: number;
  answered: number;
}

/** The requests of one process, and the longest chain of them sent each after the one before answered. */
export function serialDepth(requests: readonly Pick<TracedRequest, 'sent' | 'answered'>[]): number {
  const ordered = [...requests].sort((a, b) => a.sent - b.sent);
  const depth: number[] = [];
  for (const [i, request] of ordered.entries()) {
    let before = 0;
    for (const [j, earlier] of ordered.entries()) {
      if (j !== i && earlier.answered <= request.sent) before = Math.max(before, depth[j] ?? 0);
    }
    depth[i] = before + 1;
  }
  return Math.max(0, ...depth);
}

/** The trace file's requests, by process (`bundle pid`). */
export function readTrace(text: string): Map<string, TracedRequest[]> {
  const processes = new Map<string, TracedRequest[]>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const [bundle, pid, , operation, sent, answered] = JSON.parse(line) as [
      string,
      number,
      string,
      string,
      number,
      number,
    ];
    const key = `${bundle} ${pid}`;
    const list = processes.get(key) ?? [];
    list.push({ bundle, pid, operation, sent, answered });
    processes.set(key, list);
  }
  return processes;
}

/** One line a process: its bundle, its requests and how many of them were one after another. */
export function describeTrace(processes: Map<string, TracedRequest[]>): string {
  const rows = [...processes.values()].map((requests) => ({
    bundle: (requests[0] as TracedRequest).bundle.replace(/\.mjs$/, ''),
    requests: requests.length,
    serial: serialDepth(requests),
  }));
  rows.sort((a, b) => (a.bundle < b.bundle ? -1 : a.bundle > b.bundle ? 1 : 0));
  return rows
    .map(
      (row) =>
        `${row.bundle.padEnd(34)} requests ${String(row.requests).padStart(3)}  one after another ${row.serial}\n`,
    )
    .join('');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const file = process.argv[2];
  if (file === undefined) {
    process.stderr.write(
      'usage: npx tsx bench/request-depth.ts <trace file written by bench/trace-requests.cjs>\n',
    );
    process.exitCode = 2;
  } else {
    process.stdout.write(describeTrace(readTrace(readFileSync(file, 'utf8'))));
  }
}
