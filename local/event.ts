import { parseCli, usageError } from './cli';
import { createHttpEvent } from './http-event';
import { matchRoute } from './router';

const TOOL = 'event';
const USAGE = `Usage: npm run event -- METHOD PATH [--header name:value]... [--body JSON] [--host HOST]
Prints an API Gateway HTTP API payload 2.0 event (like \`sam local generate-event\`), routed with the
shared route table, ready for \`npm run invoke -- <function> --event file.json\`. The event's Host
header (which the API's links are built from) is --host, else 127.0.0.1:$PORT (PORT default 3000).
Redirect the event to a file with \`npm run -s event -- ... > event.json\` (npm's -s keeps its own
banner off stdout).`;

const { values, positionals } = parseCli(
  TOOL,
  USAGE,
  {
    header: { type: 'string', multiple: true },
    body: { type: 'string' },
    host: { type: 'string' },
  },
  process.argv.slice(2),
  2,
);
const [method, path] = positionals;
if (!method || !path) usageError(TOOL, 'METHOD and PATH are required');
if (!/^[A-Za-z]+$/.test(method)) usageError(TOOL, `METHOD must be an HTTP method, got '${method}'`);
if (!path.startsWith('/')) usageError(TOOL, `PATH must start with /, got '${path}'`);
const port = process.env.PORT || '3000';
const headers: Record<string, string> = {
  host: values.host ?? `127.0.0.1:${port}`,
  'x-forwarded-proto': 'http',
};
for (const header of values.header ?? []) {
  const colon = header.indexOf(':');
  if (colon < 1) usageError(TOOL, `--header must look like name:value, got '${header}'`);
  headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim();
}
const body = values.body;
if (body !== undefined) {
  try {
    JSON.parse(body);
  } catch {
    usageError(TOOL, '--body must be valid JSON');
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
