import './quiet-sdk';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { FUNCTIONS } from '../functions/routes';
import { getConfig } from '../lib/config/index';
import { useDynamoDbEndpointFromEnv } from './endpoint';
import { CDK_OUT, localTables, prepareAssembly, runtimeEnvironment } from './from-template';
import { createLambdaContext } from './http-event';
import { loadHandler } from './router';
import { createRuntimes } from './template/server';
import { readTemplateApi } from './template/template';

const USAGE = `Usage: npm run invoke -- <function> --event file.json [--from-template]   (--event - reads stdin)
Runs a function once with the event (like \`sam local invoke\`) and prints the result; its log lines go
to stderr. Functions: ${Object.keys(FUNCTIONS).join(', ')}.
  --from-template  run the function's bundle from cdk.out with the template's handler and environment
                   (synthesized first when cdk.out is missing or older than the sources)
Talks to DynamoDB at DYNAMODB_ENDPOINT (default http://127.0.0.1:8000; DYNAMODB_ENDPOINT=aws for AWS).`;

function usageError(message: string, status = 2): never {
  process.stderr.write(`invoke: ${message}\n`);
  process.exit(status);
}

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

function parseOptions() {
  try {
    return parseArgs({
      options: {
        event: { type: 'string' },
        'from-template': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    usageError((error as Error).message);
  }
}

async function main(): Promise<void> {
  useDynamoDbEndpointFromEnv();
  const { values, positionals } = parseOptions();
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const name = positionals[0];
  const file = values.event;
  if (!name || !file || positionals.length > 1) usageError(`needs one function and --event\n\n${USAGE}`, 1);
  if (!Object.hasOwn(FUNCTIONS, name)) usageError(`unknown function "${name}"\n\n${USAGE}`, 1);
  let event: APIGatewayProxyEventV2;
  try {
    event = JSON.parse(readFileSync(file === '-' ? 0 : file, 'utf8')) as APIGatewayProxyEventV2;
  } catch (error) {
    usageError(`cannot read the event: ${(error as Error).message}`, 1);
  }
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

main().catch((error: unknown) => {
  process.stderr.write(`invoke failed: ${(error as Error).message}\n`);
  process.exit(1);
});
