/**
 * The import rules of the tree, checked by `npm run lint:deps` (part of `npm test`):
 *  - core is plumbing: it imports no domain;
 *  - a domain (db, identity, mail) reaches another, and the CLI, the entries and the UI reach a domain, only through
 *    its doors: `index.ts` (the service, for the server) and `contract.ts` (the light shared contract: constants, wire
 *    schemas and types, cheap to load — what the CLI and the UI need);
 *  - the UI (the admin UI, ui/src, and the browser SDK, ui/sdk) imports server code only as types (erased at build),
 *    or a contract module; a test beside the SDK runs under Node, not in a bundle, and may import the server's
 *    modules it checks the SDK against;
 *  - no cycles.
 * Composition roots (`server/boot.ts`) wire domains through their index.ts as well.
 */
const DOMAINS = '(db|identity|mail)';
const DOORS = `^server/${DOMAINS}/(index|contract)[.]ts$`;
/** Worker threads and child processes are entries of their own, started by server/entry/roles.ts. */
const WORKERS = `^server/${DOMAINS}/.+[.](worker|child)[.]ts$`;
/**
 * Browser-safe contract modules: a domain's or core's `contract.ts`, and the phone-authenticator protocol's
 * `approval/contracts.ts` (its constants, schemas and signed byte strings, the one source the browser SDK re-exports;
 * kept out of identity's contract.ts, which the CLI loads and which stays free of zod).
 */
const CONTRACTS = '^server/((core|db|identity|mail)/contract|identity/approval/contracts)[.]ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'A cycle makes load order matter and hides which module owns what.',
      from: { path: '^(server|ui/src|ui/sdk|electron)/' },
      to: { circular: true },
    },
    {
      name: 'core-imports-no-domain',
      severity: 'error',
      comment: 'server/core is plumbing shared by every domain; domains are wired in server/boot.ts.',
      from: { path: '^server/core/' },
      to: { path: `^server/${DOMAINS}/` },
    },
    {
      name: 'domain-through-its-doors',
      severity: 'error',
      comment: 'Another domain is reached only through its index.ts or contract.ts.',
      from: { path: `^server/${DOMAINS}/` },
      to: { path: `^server/${DOMAINS}/`, pathNot: [`^server/$1/`, DOORS] },
    },
    {
      name: 'outsiders-through-the-doors',
      severity: 'error',
      comment: 'The CLI, the entries, boot and the desktop shell reach a domain only through its index.ts or contract.ts.',
      from: { path: '^(server/(cli|entry|boot[.]ts|bootstrap[.]ts|boot-[a-z]+[.]ts)|electron/)' },
      to: { path: `^server/${DOMAINS}/`, pathNot: [DOORS, WORKERS] },
    },
    {
      name: 'ui-imports-server-types-or-contracts',
      severity: 'error',
      comment: 'The admin UI is a browser bundle: server code reaches it only as types, or as a contract module.',
      from: { path: '^ui/', pathNot: '^ui/sdk/.+[.]test[.]ts$' },
      to: { path: '^server/', pathNot: CONTRACTS, dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist|dist-[a-z]+|test-results)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.cjs', '.svelte', '.json'] },
    moduleSystems: ['es6', 'cjs'],
  },
};
