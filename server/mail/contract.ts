/** Outgoing mail's contract shared with the CLI and the admin UI: wire types only. See `.dependency-cruiser.cjs`. */
export type { BounceCheckResult } from './bounces/bounces.schemas.ts';
export type { CaCertificateInfo } from './tls-ca.ts';
