/**
 * Modules loaded on first use. A library that only one request path or one background job needs (WebAuthn, IMAP,
 * ACME, the internal CA's X.509, mDNS, archives) is imported when that path first runs, not while the server starts:
 * `hearth serve` then evaluates only what answering its first request needs.
 *
 * `lazy(() => import('x'))` gives a function that starts the import once and hands every caller the same promise; a
 * failed import is forgotten, so the next call tries again. In a bundle the module is still inside the file (esbuild
 * keeps `import()` targets in the bundle and runs their top-level code on the call), so nothing can go missing at
 * run time. Type-only imports (`import type`) stay at the top of the file.
 */
export function lazy<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | null = null;
  return () => {
    pending ??= load().catch((err: unknown) => {
      pending = null;
      throw err;
    });
    return pending;
  };
}
