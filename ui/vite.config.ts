import { fileURLToPath } from 'node:url';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));
/** Where `npm run dev:ui` forwards API calls: a Hearth server started with `npm run hearth -- serve`. */
const target = process.env.HEARTH_DEV_API ?? 'http://127.0.0.1:8787';

export default defineConfig({
  root,
  base: '/',
  // Svelte 5 compiles `lang="ts"` itself: no preprocessor, so no svelte.config.js.
  plugins: [svelte({ configFile: false })],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // Everything is served same-origin under a strict CSP: no inline scripts, no data: fonts.
    assetsInlineLimit: 0,
  },
  server: {
    host: '127.0.0.1',
    port: 5173,
    strictPort: false,
    proxy: {
      '/v1': { target, changeOrigin: false },
      '/api': { target, changeOrigin: false },
      '/healthz': { target, changeOrigin: false },
    },
  },
});
