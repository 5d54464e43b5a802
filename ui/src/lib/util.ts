/** Small helpers shared by the administration pages: errors as pages show them, form values, the clipboard. */
import { ApiError, describeError } from './api/client.ts';

/**
 * An error as the pages show it: a sentence that says what to do, and — only for a server fault (5xx), where the
 * admin may need the server log — the request id to find it there.
 */
export type Failure = { message: string; requestId: string | null };

export function failure(err: unknown): Failure {
  return { message: describeError(err), requestId: err instanceof ApiError && err.status >= 500 ? err.requestId : null };
}

/**
 * A server message as a sentence: capitalised unless it starts with an API field name (`recordDays must…`,
 * `imap.port must…` keep their spelling), with a final full stop.
 */
export function sentence(s: string): string {
  const t = /^[a-z][a-z0-9]*[A-Z_.]/.test(s) ? s : s.charAt(0).toUpperCase() + s.slice(1);
  return /[.!?]$/.test(t) ? t : `${t}.`;
}

/**
 * Where a server refusal belongs: next to one of `fields`, or above the form. A body validation issue goes to the
 * field its path is, or starts with (`imap.port` matches the field `imap.port`, `smtpPort` the field `smtpPort`). An
 * error code in `codes` goes to a field: a field key (the server's message goes there), a function that picks the key
 * from the error, or a field with a message of the page's own.
 */
export function placeError(
  err: unknown,
  fields: readonly string[],
  codes: Record<string, string | ((e: ApiError) => string | null) | { field: string; message: string }> = {},
): { field: { key: string; message: string } | null; form: Failure | null } {
  if (err instanceof ApiError) {
    const c = codes[err.code];
    const place = typeof c === 'function' ? c(err) : c;
    const key = typeof place === 'object' && place ? place.field : place;
    if (key && fields.includes(key)) {
      const message = typeof place === 'object' && place ? place.message : sentence(err.message.replace(/^body: /, ''));
      return { field: { key, message }, form: null };
    }
    const issue = err.fieldIssue();
    if (issue) {
      const match = [...fields].sort((a, b) => b.length - a.length).find((f) => issue.path === f || issue.path.startsWith(`${f}.`));
      if (match) return { field: { key: match, message: sentence(issue.message) }, form: null };
    }
  }
  return { field: null, form: failure(err) };
}

/** `2030-01-01T00:00:00Z` → the value of an `<input type="datetime-local">` in the browser's time zone. */
export function toLocalInput(iso: string | null): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** The value of an `<input type="datetime-local">` → ISO 8601 (UTC), or null when empty or invalid. */
export function fromLocalInput(value: string): string | null {
  if (!value) return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** One entry per non-empty line (trimmed). */
export function lines(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
}

/** Copies text to the clipboard; false when the browser refused. */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}
