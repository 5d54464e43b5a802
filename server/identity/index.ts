/**
 * The identity platform (seed 001). Other domains use only this file.
 * Built so far: signing keys (server/identity/keys) — the only code that touches a private key.
 */
import type { Api } from '../core/http/api.ts';
import type { AuditLog } from '../core/audit/audit.ts';
import type { Logger } from '../core/logging/logger.ts';
import type { Db, Migration } from '../core/storage/platform-db.ts';
import type { SecretStore } from '../core/secrets/secrets.ts';

export const identityMigrations: Migration[] = [];

export interface IdentityDeps {
  platformDb: Db;
  secrets: SecretStore;
  audit: AuditLog;
  logger: Logger;
  env: NodeJS.ProcessEnv;
  /** The public origin tokens are issued for (HEARTH_PUBLIC_URL, default the listening address). */
  issuer: () => string;
}

export function createIdentityService(_deps: IdentityDeps) {
  return {
    registerRoutes(_api: Api): void {},
    /** Start-up readiness: throws when keys cannot be loaded (wrong KEK, corrupt ciphertext, mismatched pair). */
    async start(): Promise<void> {},
    /** Health check entry: null when ready, otherwise the reason. */
    readiness(): string | null {
      return null;
    },
    async close(): Promise<void> {},
  };
}

export type IdentityService = ReturnType<typeof createIdentityService>;
