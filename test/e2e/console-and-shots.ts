/**
 * What every spec keeps an eye on: the browser console (a page must run cleanly under the server's CSP) and the
 * screenshots kept as artifacts of the run.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ConsoleMessage, Page } from '@playwright/test';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Screenshots of the run, beside Playwright's own output (`test-results/e2e`, emptied when a run starts). */
export const SCREENSHOTS = path.join(repoRoot, 'test-results/e2e/screenshots');
/** `test-results/`: the folder some specs keep their screenshots in, outside Playwright's output (kept across runs). */
export const TEST_RESULTS = path.join(repoRoot, 'test-results');

/**
 * The errors of a page, collected from now on: uncaught exceptions and console errors. "Failed to load resource" is
 * left out (the browser logs every non-2xx fetch so, and those are expected answers: 401, 409…), and so is any error
 * `ignore` accepts (e.g. a sandboxed frame's refused script).
 */
export function watchConsole(page: Page, ignore?: (msg: ConsoleMessage) => boolean): string[] {
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() !== 'error' || msg.text().startsWith('Failed to load resource') || ignore?.(msg)) return;
    errors.push(msg.text());
  });
  return errors;
}

export interface ShotOptions {
  /** The folder (default SCREENSHOTS). */
  dir?: string;
  /** Scroll to the top before a full-page shot (a full-page shot of a scrolled page draws a sticky header mid-page). */
  fromTop?: boolean;
}

/**
 * `shot(page, name)` for one spec: a full-page screenshot, animations finished and the caret hidden, written to
 * `<dir>/<prefix>-<name>.png` (`<name>.png` without a prefix). `fullPage: false` keeps the viewport only.
 */
export function shooter(prefix: string, options: ShotOptions = {}) {
  const dir = options.dir ?? SCREENSHOTS;
  return async (page: Page, name: string, fullPage = true): Promise<void> => {
    if (fullPage && options.fromTop) await page.evaluate(() => window.scrollTo(0, 0));
    const file = path.join(dir, prefix ? `${prefix}-${name}.png` : `${name}.png`);
    await page.screenshot({ path: file, fullPage, animations: 'disabled', caret: 'hide' });
  };
}
