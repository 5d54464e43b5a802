/**
 * The database service's contract shared with the CLI and the admin UI: the namespace configuration's schema (the
 * CLI checks `--config` before sending it) and wire types. No service code: cheap to load. See `.dependency-cruiser.cjs`.
 */
export { NamespaceConfig, type NamespaceRecord } from './namespaces/namespaces.schemas.ts';
