/**
 * Plain words for a namespace's technical settings and its changelog: what the admin reads first, while the
 * identifiers (`journal_mode wal`, `update_table`, `account:admin`) stay behind "Details" or in a title.
 */
import { formatBytes, formatCount } from '../../lib/format.ts';

/** journal_mode + synchronous → how the namespace writes and what a power cut can cost. */
export function durabilityWords(journal: string, synchronous: string): string {
  const log = journal === 'wal' ? 'Write-ahead log' : journal === 'memory' ? 'Journal kept in memory' : journal === 'off' ? 'No journal' : 'Rollback journal';
  if (journal === 'off' || journal === 'memory' || synchronous === 'off') return `${log}, not safe against crashes or power loss`;
  if (synchronous === 'normal' && journal === 'wal') return `${log}, the last changes may be lost on power loss`;
  if (synchronous === 'normal') return `${log}, mostly safe against power loss`;
  return `${log}, safe against power loss`;
}

/** 8 pages of 4 KiB → "32 KiB in 8 pages of 4 KiB" (the page numbers for Details). */
export function pagesWords(pageCount: number, pageSize: number): string {
  return `${formatCount(pageCount, ['page', 'pages'])} of ${formatBytes(pageSize)}`;
}

const ACTIONS: Record<string, string> = {
  create_table: 'Created table',
  update_table: 'Changed table',
  drop_table: 'Deleted table',
  create_view: 'Created view',
  drop_view: 'Deleted view',
  create_index: 'Added index',
  drop_index: 'Removed index',
};

/** `update_table` → "Changed table" (unknown actions: underscores as spaces, capitalised). */
export function actionWords(action: string): string {
  return ACTIONS[action] ?? (action.charAt(0).toUpperCase() + action.slice(1)).replace(/_/g, ' ');
}

/** `account:admin` → "admin", `token:deploy` → "API token deploy", `service:app:…` → "Service of app". */
export function actorWords(actor: string | null | undefined): string {
  if (!actor) return '—';
  const [kind, ...rest] = actor.split(':');
  const name = rest.join(':');
  if (kind === 'account' && name) return name;
  if (kind === 'token' && name) return `API token ${name}`;
  if (kind === 'service' && rest[0]) return `Service account of ${rest[0]}`;
  if (actor === 'anonymous') return 'Anonymous';
  return actor;
}

/** journal_mode → a short name for lists ("Write-ahead log", "Rollback journal"). */
export function journalWords(journal: string): string {
  return journal === 'wal' ? 'Write-ahead log' : journal === 'memory' ? 'In memory' : journal === 'off' ? 'None' : 'Rollback journal';
}
