// Builds the Lit client into client/dist (served by the Hono server); `npm run dev:client` serves it
// with hot reload and proxies the API to a running `npm start`.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const api = process.env.DISPATCH_URL ?? 'http://127.0.0.1:7777';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', sourcemap: false },
  esbuild: { target: 'es2022' },
  server: {
    proxy: {
      '/api': { target: api, changeOrigin: false },
      '/healthz': api,
      '/mcp': api,
    },
  },
});
