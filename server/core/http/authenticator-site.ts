import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { CONTENT_TYPES } from './static-ui.ts';

/**
 * The reference authenticator web app (`ui/authenticator/`, built into `ui/dist/authenticator/`) on its own origin:
 * the optional second listener of `hearth serve --authenticator-port <port>` (HEARTH_AUTHENTICATOR_PORT).
 *
 * It serves exactly that folder and nothing else: `index.html` for `/`, the hashed files under `/assets/`, and the
 * few static files next to `index.html` (icon, manifest). No API, no admin UI, no fallback for unknown paths (the
 * app keeps its state in the URL fragment, so it has no client-side routes): everything else is 404, every method
 * but GET and HEAD is 405.
 *
 * Its CSP (`AUTHENTICATOR_CSP`): scripts and styles only from this origin (plus `'wasm-unsafe-eval'`, which the
 * vault's Argon2id WebAssembly needs to compile; no `eval`, no inline scripts); `connect-src 'self' https: http:`
 * because one authenticator talks to any number of Hearth instances whose origins are not known in advance (an
 * office server may well be plain HTTP on the LAN); no frames, objects, forms or base changes. The instances
 * themselves decide who may call them (CORS only for their configured authenticator origin).
 */
export const AUTHENTICATOR_CSP = [
  "default-src 'none'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "manifest-src 'self'",
  "connect-src 'self' https: http:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "object-src 'none'",
].join('; ');

/** The file types the site serves (its allow-list): the UI's types without data files. */
const TYPES = Object.fromEntries(Object.entries(CONTENT_TYPES).filter(([ext]) => ext !== '.json' && ext !== '.txt'));

/** Headers every answer of the authenticator site carries. */
function baseHeaders(): Record<string, string> {
  return {
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Content-Security-Policy': AUTHENTICATOR_CSP,
  };
}

/** The request handler of the authenticator listener; `dir` is `ui/dist/authenticator`. */
export function authenticatorSite(dir: string): http.RequestListener {
  const root = path.resolve(dir);
  return (req, res) => {
    const fail = (status: number, text: string, extra: Record<string, string> = {}) => {
      res.writeHead(status, { ...baseHeaders(), 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', ...extra });
      res.end(req.method === 'HEAD' ? undefined : `${text}\n`);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return fail(405, 'Method not allowed.', { Allow: 'GET, HEAD' });
    // Segments are split before decoding: an encoded separator (`%2f`) never makes a new segment.
    let parts: string[];
    try {
      const raw = new URL(req.url ?? '/', 'http://x').pathname;
      parts = (raw === '/' ? '/index.html' : raw).split('/').slice(1).map(decodeURIComponent);
    } catch {
      return fail(400, 'Bad request.');
    }
    const rel = `/${parts.join('/')}`;
    // Only `/index.html`, top-level static files and `/assets/<file>`: no other folders, no dot files.
    const allowed =
      parts.every((p) => p !== '' && !p.startsWith('.') && !p.includes('/') && !p.includes('\\')) &&
      (parts.length === 1 || (parts.length === 2 && parts[0] === 'assets')) &&
      TYPES[path.extname(rel)] !== undefined;
    if (!allowed) return fail(404, 'Not found.');
    const file = path.join(root, ...parts);
    if (!file.startsWith(root + path.sep)) return fail(404, 'Not found.');
    let stat: fs.Stats;
    try {
      stat = fs.statSync(file);
      if (!stat.isFile()) return fail(404, 'Not found.');
    } catch {
      if (rel === '/index.html') return fail(503, 'The authenticator app is not built. Run `npm run build:ui`.');
      return fail(404, 'Not found.');
    }
    res.writeHead(200, {
      ...baseHeaders(),
      'Content-Type': TYPES[path.extname(file)]!,
      'Content-Length': String(stat.size),
      'Cache-Control': parts[0] === 'assets' ? 'public, max-age=31536000, immutable' : 'no-cache',
    });
    if (req.method === 'HEAD') return res.end();
    fs.createReadStream(file)
      .on('error', () => res.destroy())
      .pipe(res);
  };
}
