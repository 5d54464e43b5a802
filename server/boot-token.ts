/**
 * The first admin token of a fresh data folder (moved out of boot.ts unchanged): `<data>/initial-admin-token`, so that
 * the first sign-in needs nothing else.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { TokenService } from './core/auth/tokens.service.ts';
import type { HearthConfig } from './core/config/config.ts';

export const INITIAL_TOKEN_FILE = 'initial-admin-token';

/**
 * On a fresh data folder (no active admin token, no HEARTH_ADMIN_TOKEN) Hearth creates one admin token and
 * writes it to `<data>/initial-admin-token` (mode 0600) so the first sign-in needs nothing else. It is never logged.
 */
export async function ensureInitialAdminToken(config: HearthConfig, tokens: TokenService): Promise<string | null> {
  const file = path.join(config.dataDir, INITIAL_TOKEN_FILE);
  if (fs.existsSync(file)) {
    const stored = fs.readFileSync(file, 'utf8').trim();
    if ((await tokens.authenticate(stored))?.kind === 'admin') return file;
    fs.rmSync(file, { force: true }); // revoked or expired: do not point anyone at it
  }
  if ((await tokens.hasActiveAdminToken()) || config.adminToken) return null;
  const { token } = await tokens.create({ name: 'initial-admin', scope: 'admin' });
  fs.writeFileSync(file, `${token}\n`, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  return file;
}
