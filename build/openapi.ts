/**
 * The admin UI's API types, generated from the published OpenAPI document (`npm run build:openapi`; `npm run build:ui`
 * runs it first). The document is the one `GET /v1/openapi.json` serves: a server started with a throwaway data folder,
 * no environment (the defaults, so HEARTH_* settings of this machine change nothing) and port 0 on loopback, asked
 * once and closed. openapi-typescript turns it into `paths` and `components` types, Biome formats them as the tree is
 * formatted, and the result is `ui/src/lib/api/openapi.ts`, which is committed: a clean clone typechecks without a
 * server, and test/integration/core/openapi-types.test.ts regenerates it in memory and fails when it is stale.
 *
 * `node build/openapi.ts --check` writes nothing and exits 1 when the committed file is stale.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { startServer } from '../server/boot.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Where the generated types live, relative to the repository. */
export const OPENAPI_TYPES_FILE = 'ui/src/lib/api/openapi.ts';

const HEADER = `/**
 * The API's paths, parameters, bodies and answers, generated from the OpenAPI document the server publishes
 * (\`GET /v1/openapi.json\`) by \`npm run build:openapi\` (build/openapi.ts, openapi-typescript). Do not edit: change the
 * server's route definitions and schemas, then run \`npm run build:openapi\`.
 */

`;

/** The document exactly as `GET /v1/openapi.json` answers it, from a server of its own that is closed again. */
export async function fetchOpenApiDocument(): Promise<OpenAPI3> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-openapi-'));
  try {
    const server = await startServer({ host: '127.0.0.1', port: 0, logLevel: 'silent', env: {}, dataDir });
    try {
      const res = await fetch(`${server.url}/v1/openapi.json`);
      if (!res.ok) throw new Error(`GET /v1/openapi.json answered ${res.status}`);
      return (await res.json()) as OpenAPI3;
    } finally {
      await server.close();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The content of `ui/src/lib/api/openapi.ts` for `doc`: openapi-typescript's types, formatted by Biome. */
export async function openApiTypes(doc: OpenAPI3): Promise<string> {
  // A member with a default is optional in the types: a request may leave it out. (The document shares a schema
  // between a request and an answer, so the two answers whose schema has defaults, a namespace's `config` and the
  // Linux configuration, are made whole where the UI names their types.)
  const ast = await openapiTS(doc, { silent: true, defaultNonNullable: false });
  const biome = spawnSync(path.join(ROOT, 'node_modules', '.bin', 'biome'), ['format', `--stdin-file-path=${OPENAPI_TYPES_FILE}`], {
    cwd: ROOT,
    input: HEADER + astToString(ast),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (biome.status !== 0) throw new Error(`biome format failed: ${biome.stderr || biome.error?.message}`);
  return biome.stdout;
}

if (import.meta.main) {
  const check = process.argv.includes('--check');
  const file = path.join(ROOT, OPENAPI_TYPES_FILE);
  const text = await openApiTypes(await fetchOpenApiDocument());
  const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null;
  if (check) {
    if (current !== text) {
      process.stderr.write(`build: ${OPENAPI_TYPES_FILE} is not up to date with the OpenAPI document: run npm run build:openapi\n`);
      process.exit(1);
    }
  } else if (current !== text) {
    fs.writeFileSync(file, text);
    process.stdout.write(`build: wrote ${OPENAPI_TYPES_FILE}\n`);
  }
}
