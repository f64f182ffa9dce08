import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { WorstCaseFigures } from './cache-worst-case';
import { timeProcess } from './cold-start';
import { round } from './support';

/** Runs every event through the bundled function in one fresh process, then reports its RSS. */
const RUN_ALL = `
import { readFileSync } from 'node:fs';
const { handler } = await import(process.env.BENCH_BUNDLE);
const events = JSON.parse(readFileSync(process.env.BENCH_EVENTS, 'utf8'));
for (const event of events) {
  const result = await handler(event, { awsRequestId: 'memory', getRemainingTimeInMillis: () => 10000 });
  if (result.statusCode !== 200) { console.error('status ' + result.statusCode + ': ' + result.body); process.exit(2); }
}
process.stdout.write(JSON.stringify({ rss: process.memoryUsage().rss }));
process.exit(0);
`;

/** RSS in MB of a fresh container (process) after answering all `events` with the bundled function. */
export async function measureRssAfter(
  bundle: string,
  events: APIGatewayProxyEventV2[],
  env: NodeJS.ProcessEnv,
  workDir: string,
): Promise<number> {
  const file = join(workDir, 'memory-events.json');
  writeFileSync(file, JSON.stringify(events));
  const { stdout: output } = await timeProcess(['--input-type=module', '-e', RUN_ALL], {
    ...env,
    BENCH_BUNDLE: bundle,
    BENCH_EVENTS: file,
  });
  return round(JSON.parse(output).rss / (1024 * 1024), 1);
}

/**
 * The worst-case catalog caches (bench/cache-worst-case.ts) in a fresh process with the Lambda's heap
 * (`--max-old-space-size=256`), against the bench's DynamoDB Local: 6 stores of 300 worst-case children.
 */
export async function measureWorstCaseInProcess(env: NodeJS.ProcessEnv): Promise<WorstCaseFigures> {
  const script = join(import.meta.dirname, 'cache-worst-case.ts');
  const { stdout } = await timeProcess(
    [
      '--expose-gc',
      '--max-old-space-size=256',
      '--import',
      'tsx',
      script,
      '--stores',
      '6',
      '--children',
      '300',
      '--json',
    ],
    env,
  );
  return JSON.parse(stdout) as WorstCaseFigures;
}
