import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * The browser SDK as a library: `ui/dist-sdk/app-approval.js` (ES module, zod and hash-wasm bundled), built by
 * `npm run build:sdk`. Apps inside this repository (the reference authenticator) import the sources directly.
 */
export default defineConfig({
  root,
  build: {
    outDir: fileURLToPath(new URL('../dist-sdk', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    minify: false,
    lib: {
      entry: { 'app-approval': fileURLToPath(new URL('./app-approval/index.ts', import.meta.url)) },
      formats: ['es'],
    },
  },
});
