/**
 * One desktop admin token shared by the window and the main process's own calls (the menu's "Back up now…").
 * Plain module (no Electron), tested under Node.
 *
 * The server keeps one desktop token at a time: issuing a new one revokes the previous one
 * (server/entry/utility.ts). So the main process must not issue a token of its own for each call — that would sign
 * the window out, and the window's renewal would then cut off the main process in the middle of a backup. Rules:
 * - The main process uses the current token while it has more than `marginMs` left, else issues a new one.
 * - The window asks only when it has no token or its token stopped working. It gets the current token if that one
 *   was issued for the main process and not handed to the window yet; otherwise a new one.
 * - A main-process call answered 401 asks `renew(rejected)`: a newer token than the rejected one if there is one
 *   (the window renewed in between), else a new one.
 * Concurrent requests share one issue in flight.
 */
import type { LoginToken } from '../server/entry/protocol.ts';

export const TOKEN_MARGIN_MS = 5 * 60_000;

export class DesktopTokens {
  private current: LoginToken | null = null;
  private handedToWindow = false;
  private issuing: Promise<LoginToken> | null = null;
  private readonly issue: () => Promise<LoginToken>;
  private readonly opts: { now?: () => number; marginMs?: number };

  constructor(issue: () => Promise<LoginToken>, opts: { now?: () => number; marginMs?: number } = {}) {
    this.issue = issue;
    this.opts = opts;
  }

  private fresh(t: LoginToken | null): t is LoginToken {
    const now = this.opts.now?.() ?? Date.now();
    return t !== null && Date.parse(t.expiresAt) - now > (this.opts.marginMs ?? TOKEN_MARGIN_MS);
  }

  private async issueNew(): Promise<LoginToken> {
    this.issuing ??= this.issue().then(
      (t) => {
        this.current = t;
        this.handedToWindow = false;
        this.issuing = null;
        return t;
      },
      (err: unknown) => {
        this.issuing = null;
        throw err;
      },
    );
    return this.issuing;
  }

  /** For the window's sign-in (the bridge's `hearth:sign-in`). */
  async forWindow(): Promise<LoginToken> {
    const t = this.fresh(this.current) && !this.handedToWindow ? this.current : await this.issueNew();
    this.handedToWindow = true;
    return t;
  }

  /** For a call of the main process. */
  async forShell(): Promise<string> {
    return (this.fresh(this.current) ? this.current : await this.issueNew()).token;
  }

  /** After a main-process call was refused (401) with `rejected`. */
  async renew(rejected: string): Promise<string> {
    if (this.fresh(this.current) && this.current.token !== rejected) return this.current.token;
    return (await this.issueNew()).token;
  }
}
