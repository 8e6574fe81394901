/**
 * Writes the OpenAPI document (functions/handlers/routes: every route's schema) as JSON to the file named by the first
 * argument: the pages function's bundling runs it (lib/holdback-function.ts), so the function serves the document
 * without carrying every route's code. `GET /openapi.json` answers it byte for byte as the routes make it.
 */
import { writeFileSync } from 'node:fs';
import { OPENAPI_DOCUMENT } from '../functions/handlers/routes';

const [file] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: build-openapi.ts <output file>\n');
  process.exit(2);
}
writeFileSync(file, JSON.stringify(OPENAPI_DOCUMENT));
