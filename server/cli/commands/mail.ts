import type { Command } from 'commander';
import { registerApps } from './mail/apps.ts';
import { registerLog } from './mail/log.ts';
import { registerProfiles } from './mail/profiles.ts';
import { registerRetention } from './mail/retention.ts';

/**
 * `hearth admin outgoing-mail profiles|apps|log|retention …`: the outgoing-mail administration API
 * (`/api/admin/core/outgoing-mail`, docs/api/mail.md) of a running server, one file per resource under mail/.
 * Passwords never travel on the command line (mail/shared.ts reads profiles).
 */
export { MAIL_BASE } from './mail/shared.ts';

/** Registers `hearth admin outgoing-mail …` under `admin` (linux.ts registers `admin linux`). */
export function registerMail(admin: Command): void {
  const mail = admin.command('outgoing-mail').description('outgoing mail: sender profiles (SMTP settings), application access, the send log and its retention');
  registerProfiles(mail);
  registerApps(mail);
  registerLog(mail);
  registerRetention(mail);
}
