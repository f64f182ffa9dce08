import './quiet-sdk';
import { readFileSync } from 'node:fs';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { FUNCTIONS } from '../functions/routes';
import { createLambdaContext } from '../lib/http/event';
import { fail, option, parseArgs } from './args';
import { loadHandler } from './router';

const USAGE = `Usage: npm run invoke -- <function> --event file.json   (use --event - for stdin)
Runs a function's handler once in-process with the event (like \`sam local invoke\`) and prints the
result. Functions: ${Object.keys(FUNCTIONS).join(', ')}.
Talks to DynamoDB at DYNAMODB_ENDPOINT (default http://127.0.0.1:8000).`;

/** Like `sam local invoke`: the function's log lines go to stderr, so stdout carries only the result. */
async function logsToStderr<T>(run: () => Promise<T>): Promise<T> {
  const write = process.stdout.write;
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  try {
    return await run();
  } finally {
    process.stdout.write = write;
  }
}

async function main(): Promise<void> {
  process.env.DYNAMODB_ENDPOINT ??= 'http://127.0.0.1:8000';
  const args = parseArgs(process.argv.slice(2), ['event']);
  const name = args.positionals[0];
  const file = option(args, 'event');
  if (!name || !file) fail(USAGE);
  if (!Object.hasOwn(FUNCTIONS, name)) fail(`unknown function "${name}"\n\n${USAGE}`);
  let event: APIGatewayProxyEventV2;
  try {
    event = JSON.parse(readFileSync(file === '-' ? 0 : file, 'utf8')) as APIGatewayProxyEventV2;
  } catch (error) {
    fail(`cannot read the event: ${(error as Error).message}`);
  }
  const handler = await loadHandler(name);
  const started = performance.now();
  const result = await logsToStderr(() => handler(event, createLambdaContext(name)));
  process.stderr.write(`${name}: ${(performance.now() - started).toFixed(1)} ms\n`);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}

main().catch((error: unknown) => fail(`invoke failed: ${(error as Error).message}`));
