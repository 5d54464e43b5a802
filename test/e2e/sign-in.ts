/**
 * Signing in through the admin UI's sign-in page, for the specs and the screenshot script: with an account's login and
 * password, or with an admin API token ("Use an API token"). The sign-in flows themselves (errors, passkeys, the
 * authenticator app, first setup) are tested in their own specs, step by step, not through this.
 */
import { expect, type Page } from '@playwright/test';

/** An account's login and password, or an admin token (`remember`: "Remember on this device"). */
export type SignInWith = { login: string; password: string } | { token: string; remember?: boolean };

export interface SignInOptions {
  /** Prefixed to `at`: the server's address, or '' for the config's `baseURL`. */
  base?: string;
  /** The page opened first, where the sign-in form shows and which the UI stays on once signed in ('/' by default). */
  at?: string;
  /** The level-1 heading of that page once signed in ('Home' by default). */
  lands?: string;
  /** For the waits on headings (the expect timeout of the config when not given). */
  timeout?: number;
}

/** Opens `base + at`, signs in there with `who`, and waits for the signed-in page's heading `lands`. */
export async function signIn(page: Page, who: SignInWith, opts: SignInOptions = {}): Promise<void> {
  const timeout = opts.timeout;
  await page.goto((opts.base ?? '') + (opts.at ?? '/'));
  if ('token' in who) {
    await page.getByRole('button', { name: 'Use an API token' }).click();
    await expect(page.getByRole('heading', { name: 'Sign in with an API token', level: 1 })).toBeVisible({ timeout });
    await page.getByLabel('Admin token').fill(who.token);
    if (who.remember) await page.getByLabel('Remember on this device').check();
  } else {
    await expect(page.getByRole('heading', { name: 'Sign in', exact: true, level: 1 })).toBeVisible({ timeout });
    await page.getByLabel('Login').fill(who.login);
    await page.getByLabel('Password', { exact: true }).fill(who.password);
  }
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByRole('heading', { name: opts.lands ?? 'Home', level: 1 })).toBeVisible({ timeout });
}
