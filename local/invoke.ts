import './quiet-sdk';
import './lambda-env';
import { readFileSync } from 'node:fs';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { FUNCTIONS } from '../functions/routes';
import { getConfig } from '../lib/config/index';
import { STDIO_WRITER, type StdioWriter } from '../lib/runtime/stdio';
import { DATABASE_HELP, fail, parseCli, usageError, useToolDatabase } from './cli';
import { CDK_OUT, localTables, prepareAssembly, runtimeEnvironment } from './from-template';
import { createLambdaContext, httpEventProblem } from './http-event';
import { parseJson } from './messages';
import { loadHandler } from './router';
import { createRuntimes } from './template/server';
import { readTemplateApi } from './template/template';

const TOOL = 'invoke';
const USAGE = `Usage: npm run invoke -- <function> --event file.json [--from-template]   (use --event - for stdin)
Runs a function once with the event (like \`sam local invoke\`) and prints the result on stdout (the
function's logs go to stderr). Functions: ${Object.keys(FUNCTIONS).join(', ')}.
  --from-template  run the function's bundle from cdk.out with the template's handler and environment
                   (synthesized first when cdk.out is missing or older than the sources)

${DATABASE_HELP}`;

/** Like `sam local invoke`: the function's log lines go to stderr, so stdout carries only the result. */
async function logsToStderr<T>(run: () => Promise<T>): Promise<T> {
  const write = process.stdout.write;
  const host = globalThis as Record<symbol, unknown>;
  const writer = host[STDIO_WRITER];
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  host[STDIO_WRITER] = ((_stream, text) => process.stderr.write(text)) satisfies StdioWriter;
  try {
    return await run();
  } finally {
    process.stdout.write = write;
    host[STDIO_WRITER] = writer;
  }
}

async function main(): Promise<void> {
  const { values, positionals } = parseCli(
    TOOL,
    USAGE,
    { event: { type: 'string' }, 'from-template': { type: 'boolean' } },
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
    event = parseJson(readFileSync(file === '-' ? 0 : file, 'utf8')) as APIGatewayProxyEventV2;
  } catch (error) {
    usageError(TOOL, `cannot read the event: ${(error as Error).message}`);
  }
  // Checked before the function runs: given less than API Gateway sends, it would fail inside (a 500).
  const problem = httpEventProblem(event);
  if (problem !== undefined) {
    usageError(
      TOOL,
      `${file === '-' ? 'the event on stdin' : file} is not an API Gateway HTTP API event (payload 2.0): ${problem}; \`npm run event -- METHOD PATH\` prints one`,
    );
  }
  useToolDatabase(TOOL);
  const requestId = event.requestContext?.requestId ?? 'invoke';
  const started = performance.now();
  let result: unknown;
  if (values['from-template']) {
    await prepareAssembly();
    const config = getConfig();
    const api = readTemplateApi(CDK_OUT, localTables(config));
    const runtime = createRuntimes(api.functions, runtimeEnvironment(config), 'stderr').get(name);
    if (!runtime) throw new Error(`the template has no function ${name}`);
    try {
      result = await runtime.invoke(event, requestId);
    } finally {
      await runtime.close();
    }
  } else {
    const handler = await loadHandler(name);
    result = await logsToStderr(() => handler(event, createLambdaContext(name, requestId)));
  }
  process.stderr.write(`${name}: ${(performance.now() - started).toFixed(1)} ms\n`);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}

main().catch((error: unknown) => fail(TOOL, `failed: ${(error as Error).message}`));
