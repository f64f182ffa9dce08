import { fail, parseArgs } from './args';
import { createHttpEvent } from './http-event';
import { matchRoute } from './router';

const USAGE = `Usage: npm run event -- METHOD PATH [--header name:value]... [--body JSON]
Prints an API Gateway HTTP API payload 2.0 event (like \`sam local generate-event\`), routed with the
shared route table, ready for \`npm run invoke -- <function> --event file.json\`.`;

const args = parseArgs(process.argv.slice(2), ['header', 'body']);
const [method, path] = args.positionals;
if (!method || !path?.startsWith('/')) fail(USAGE);
const headers: Record<string, string> = { host: '127.0.0.1:3000', 'x-forwarded-proto': 'http' };
for (const header of args.options.get('header') ?? []) {
  const colon = header.indexOf(':');
  if (colon < 1) fail(`--header must look like name:value, got "${header}"`);
  headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim();
}
const body = args.options.get('body')?.at(-1);
if (body !== undefined) {
  try {
    JSON.parse(body);
  } catch {
    fail('--body must be valid JSON');
  }
  headers['content-type'] ??= 'application/json';
}
const match = matchRoute(method, path.split('?')[0] ?? path);
const event = createHttpEvent({
  method,
  path,
  headers,
  body,
  ...(match ? { routeKey: match.routeKey, pathParameters: match.pathParameters } : {}),
});
if (!match)
  process.stderr.write(
    `note: no route matches ${method.toUpperCase()} ${path}; API Gateway would answer 404\n`,
  );
else process.stderr.write(`route: ${match.routeKey} -> function ${match.route.function}\n`);
process.stdout.write(`${JSON.stringify(event, null, 2)}\n`);
