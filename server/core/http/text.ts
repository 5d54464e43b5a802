/**
 * The one rule for human-readable names and labels in the API (token names, OAuth client names and descriptions,
 * display names, group descriptions, service-account parts, passkey names, mail application names, a key's revocation
 * reason): text a person reads in a list must look like what it is. Refused, with 400 `invalid_request` naming the
 * character and where it is:
 *
 *   - control characters, C0 (U+0000–U+001F, NUL included) and C1 (U+007F–U+009F); a multi-line text (a description)
 *     may hold line feeds, carriage returns and tabs;
 *   - bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), which reorder what follows them
 *     ("adm\u202Enimda" shows as "admadmin");
 *   - the line and paragraph separators U+2028 and U+2029 in a single-line name;
 *   - unpaired surrogates (not text: no encoding can store them).
 */
import { z } from 'zod';

const BIDI = /[\u202a-\u202e\u2066-\u2069]/u;

/** Why `text` breaks the rule, or null: the first offending character as U+XXXX and its 1-based position. */
export function plainTextProblem(text: string, opts: { multiline?: boolean } = {}): string | null {
  if (/[\ud800-\udfff]/.test(text)) {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      const high = c >= 0xd800 && c <= 0xdbff;
      const low = c >= 0xdc00 && c <= 0xdfff;
      if (high && i + 1 < text.length && text.charCodeAt(i + 1) >= 0xdc00 && text.charCodeAt(i + 1) <= 0xdfff) {
        i++;
        continue;
      }
      if (high || low) return `an unpaired surrogate (U+${hex(c)}) at character ${i + 1}`;
    }
  }
  let i = 0;
  for (const ch of text) {
    i++;
    const cp = ch.codePointAt(0)!;
    if (opts.multiline && (cp === 0x0a || cp === 0x0d || cp === 0x09)) continue;
    if (cp <= 0x1f || (cp >= 0x7f && cp <= 0x9f)) return `a control character (U+${hex(cp)}) at character ${i}`;
    if (BIDI.test(ch)) return `a bidirectional control (U+${hex(cp)}) at character ${i}`;
    if (!opts.multiline && (cp === 0x2028 || cp === 0x2029)) return `a line separator (U+${hex(cp)}) at character ${i}`;
  }
  return null;
}

const hex = (n: number) => n.toString(16).toUpperCase().padStart(4, '0');

/**
 * The rule as a zod refinement, for a string schema that keeps its own length checks and messages:
 * `z.string().trim().max(120, …).superRefine(plainTextRule('name'))`.
 */
export function plainTextRule(field: string, opts: { multiline?: boolean } = {}) {
  return (value: string, ctx: z.RefinementCtx) => {
    const problem = plainTextProblem(value, opts);
    if (problem)
      ctx.addIssue({
        code: 'custom',
        message: `${field} must be plain ${opts.multiline ? '' : 'one-line '}text: it contains ${problem} (no control characters, bidirectional overrides or unpaired surrogates)`,
      });
  };
}

/**
 * A zod string for a human-readable name or label under the rule above: trimmed, `min`–`max` characters, one line
 * unless `multiline`. The messages name `field`.
 */
export function plainText(field: string, opts: { min?: number; max: number; multiline?: boolean }) {
  const min = opts.min ?? 0;
  const range = min > 0 ? `${min}–${opts.max}` : `at most ${opts.max}`;
  return z
    .string()
    .trim()
    .min(min, `${field} must be ${range} characters`)
    .max(opts.max, `${field} must be ${range} characters`)
    .superRefine(plainTextRule(field, opts));
}
