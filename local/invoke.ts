import './quiet-sdk';
import './lambda-env';
import { readFileSync } from 'node:fs';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { FUNCTIONS } from '../functions/routes';
import { createLambdaContext } from '../lib/http/event';
import { DATABASE_HELP, fail, parseCli, usageError, useToolDatabase } from './cli';
import { loadHandler } from './router';

const TOOL = 'invoke';
const USAGE = `Usage: npm run invoke -- <function> --event file.json   (use --event - for stdin)
Runs a function's handler once in-process with the event (like \`sam local invoke\`) and prints the
result on stdout (the function's logs go to stderr). Functions: ${Object.keys(FUNCTIONS).join(', ')}.

${DATABASE_HELP}`;

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
  const { values, positionals } = parseCli(
    TOOL,
    USAGE,
    { event: { type: 'string' } },
    process.argv.slice(2),
    1,
  );
  const name = positionals[0];
  const file = values.event;
  if (!name) usageError(TOOL, 'a function name is required');
  if (!file) usageError(TOOL, '--event is required');
  if (!Object.hasOwn(FUNCTIONS, name)) {
    usageError(TOOL, `unknown function '${name}'; the functions are ${Object.keys(FUNCTIONS).join(', ')}`);
  }
  let event: APIGatewayProxyEventV2;
  try {
    event = JSON.parse(readFileSync(file === '-' ? 0 : file, 'utf8')) as APIGatewayProxyEventV2;
  } catch (error) {
    usageError(TOOL, `cannot read the event: ${(error as Error).message}`);
  }
  useToolDatabase(TOOL);
  const handler = await loadHandler(name);
  const started = performance.now();
  const result = await logsToStderr(() => handler(event, createLambdaContext(name)));
  process.stderr.write(`${name}: ${(performance.now() - started).toFixed(1)} ms\n`);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}

main().catch((error: unknown) => fail(TOOL, `failed: ${(error as Error).message}`));
