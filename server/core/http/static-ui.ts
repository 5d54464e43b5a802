import fs from 'node:fs';
import path from 'node:path';
import type { AppMiddleware } from './app-context.ts';

/** Content types of the files the UI builds (also the reference authenticator site's, server/core/http/authenticator-site.ts). */
export const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.wasm': 'application/wasm',
  '.webmanifest': 'application/manifest+json',
};

/**
 * Paths owned by the API: never answered with the UI. `/authenticator` is the reference authenticator web app's
 * build folder (`ui/dist/authenticator/`): it is served only by its own listener on its own origin
 * (server/core/http/authenticator-site.ts), never on the platform origin.
 */
const API_PREFIXES = ['/v1', '/api', '/auth', '/healthz', '/metrics', '/oauth', '/.well-known', '/authenticator'];

/**
 * Serves the built admin UI: files under `dir`, and `index.html` for any other GET that accepts HTML
 * (client-side routes). Hashed assets are cached for a year, index.html never.
 */
export function serveUi(dir: string): AppMiddleware {
  const root = path.resolve(dir);
  return async (ctx, next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || API_PREFIXES.some((p) => ctx.path === p || ctx.path.startsWith(`${p}/`))) {
      return next();
    }
    let rel: string;
    try {
      rel = decodeURIComponent(ctx.path);
    } catch {
      return next();
    }
    let file = path.join(root, rel);
    if (!file.startsWith(root)) return next();
    let stat = statFile(file);
    if (!stat) {
      if (path.extname(rel) !== '' || !ctx.accepts('html')) return next();
      file = path.join(root, 'index.html');
      stat = statFile(file);
      if (!stat) {
        ctx.status = 503;
        ctx.type = 'text/plain';
        ctx.body = 'The admin UI is not built. Run `npm run build:ui` (npm start does it for you).\n';
        return;
      }
    }
    const ext = path.extname(file);
    ctx.type = CONTENT_TYPES[ext] ?? 'application/octet-stream';
    ctx.length = stat.size;
    ctx.set('X-Content-Type-Options', 'nosniff');
    if (rel.startsWith('/assets/')) ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    else ctx.set('Cache-Control', 'no-cache');
    if (ext === '.html') {
      ctx.set('X-Frame-Options', 'DENY');
      ctx.set('Referrer-Policy', 'no-referrer');
      ctx.set(
        'Content-Security-Policy',
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'",
      );
    }
    if (ctx.method === 'HEAD') {
      ctx.status = 200;
      return;
    }
    ctx.body = fs.createReadStream(file);
  };
}

function statFile(file: string): fs.Stats | null {
  try {
    const s = fs.statSync(file);
    return s.isFile() ? s : null;
  } catch {
    return null;
  }
}
