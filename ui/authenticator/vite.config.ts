import { fileURLToPath } from 'node:url';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vite';

/**
 * The reference authenticator web app: its own Vite app, built into `ui/dist/authenticator/` (after the admin UI,
 * whose build empties `ui/dist`), served only on its own origin by the `--authenticator-port` listener
 * (server/core/http/authenticator-site.ts). Under that listener's strict CSP: no inline scripts or styles, no data:
 * fonts, so nothing is inlined.
 */
const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/',
  plugins: [svelte({ configFile: false })],
  build: {
    outDir: fileURLToPath(new URL('../dist/authenticator', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    assetsInlineLimit: 0,
  },
  server: { host: '127.0.0.1', port: 5174, strictPort: false },
});
