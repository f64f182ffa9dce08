import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ROUTE_TABLE } from '../functions/routes';
import { buildOpenApiDocument } from '../lib/openapi/document';
import { parseCli } from './cli';

/** Where the committed document lives (a test fails when it differs from the built one). */
export const OPENAPI_FILE = fileURLToPath(new URL('../openapi.json', import.meta.url));

/** The document as committed: 2-space JSON with a final newline. */
export function openApiText(): string {
  return `${JSON.stringify(buildOpenApiDocument(ROUTE_TABLE), null, 2)}\n`;
}

const USAGE = `Usage: npm run openapi
Rebuilds openapi.json from the route table (functions/routes.ts) and the request and response schemas.
Takes no options; a test fails when the committed document is stale.`;

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  parseCli('openapi', USAGE, {});
  writeFileSync(OPENAPI_FILE, openApiText());
  process.stdout.write(`wrote ${OPENAPI_FILE}\n`);
}
