import './silent-logs';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDevServer } from '../local/dev';
import { listen } from '../local/gateway';
import { startBenchDatabase } from './support';

/**
 * `npm run dev` reload latency: on a copy of the project, the token handler is edited N times (a new
 * marker in its answer each time) and the time from the write to the first answer carrying the marker
 * is measured (requests every 10 ms). `npx tsx bench/dev-reload.ts [--edits N]`; prints the median.
 */
const editsFlag = process.argv.indexOf('--edits');
const EDITS = editsFlag === -1 ? 10 : Number(process.argv[editsFlag + 1]);
const ROOT = join(import.meta.dirname, '..');

async function main(): Promise<void> {
  const database = await startBenchDatabase();
  const copy = mkdtempSync(join(tmpdir(), 'dev-reload-'));
  for (const part of ['functions', 'lib', 'infra', 'package.json', 'tsconfig.json'])
    cpSync(join(ROOT, part), join(copy, part), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
  const handlerFile = join(copy, 'functions/create-access-token/handler.ts');
  const original = readFileSync(handlerFile, 'utf8');
  const dev = createDevServer({ root: copy });
  const base = `http://127.0.0.1:${await listen(dev.server, 0)}`;
  const ask = async () =>
    (
      await fetch(`${base}/oauth/access_token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"grant_type":"implicit","client_id":"nobody"}',
      })
    ).text();
  await ask(); // the first build and cold start, not a reload
  const samples: number[] = [];
  try {
    for (let edit = 1; edit <= EDITS; edit += 1) {
      const marker = `reload-${edit}-${Date.now()}`;
      const started = performance.now();
      writeFileSync(
        handlerFile,
        original.replace(
          'const token = await issueAccessToken(event.parsedBody);',
          `if (Date.now() > 0) return json(200, { marker: '${marker}' });\n  const token = await issueAccessToken(event.parsedBody);`,
        ),
      );
      for (;;) {
        if ((await ask()).includes(marker)) break;
        if (performance.now() - started > 10_000) throw new Error(`edit ${edit} not served after 10 s`);
        await new Promise((r) => setTimeout(r, 10));
      }
      samples.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, 300));
    }
  } finally {
    dev.server.closeAllConnections();
    dev.server.close();
    await dev.stop();
    await database.stop();
    rmSync(copy, { recursive: true, force: true });
  }
  const sorted = [...samples].sort((a, b) => a - b);
  const median =
    ((sorted[Math.floor((sorted.length - 1) / 2)] ?? 0) + (sorted[Math.ceil((sorted.length - 1) / 2)] ?? 0)) /
    2;
  process.stdout.write(
    `${JSON.stringify({ edits: EDITS, median_ms: Math.round(median), max_ms: Math.round(sorted.at(-1) ?? 0), samples_ms: samples.map(Math.round) })}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`dev-reload failed: ${(error as Error).stack}\n`);
  process.exit(1);
});
