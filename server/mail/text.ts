/**
 * One-line header text. What becomes a header of outgoing mail — the sender's display name (a profile's `fromName`,
 * else the application's name) and subjects — must stay one line: mail clients show CR, LF, NUL, NEL (U+0085) and
 * the Unicode line and paragraph separators (U+2028, U+2029) as a new line, that is a fake header line under the real
 * one, even when the header is correctly encoded. No zod here: the SMTP thread composes with these too.
 */

/** Never in a display name: control characters (C0 with NUL, CR and LF; DEL; C1 with NEL) and U+2028, U+2029. */
export const NAME_FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
/** Never in one-line header text (subjects, custom header values): the same, except that a tab is allowed. */
export const LINE_FORBIDDEN = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/;

/** `text` with each run of `forbidden` characters replaced by one space (text stored before the rule stays one line). */
export function oneLine(text: string, forbidden: RegExp): string {
  return forbidden.test(text) ? text.replace(new RegExp(`${forbidden.source}+`, 'g'), ' ') : text;
}
