// Builds the Lit client into client/dist (served by the Hono server); `npm run dev:client` serves it
// with hot reload and proxies the API to a running `npm start`.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

const api = process.env.DISPATCH_URL ?? 'http://127.0.0.1:7777';

const here = fileURLToPath(new URL('.', import.meta.url));

/** Writes sw.js from sw-template.js with this build's shell files and a version derived from them. */
function serviceWorker(): Plugin {
  return {
    name: 'pd-service-worker',
    apply: 'build',
    generateBundle(_options, bundle) {
      const publicFiles = ['/offline.html', '/offline.css', '/offline.js', '/manifest.webmanifest', '/icons/icon-192.png', '/icons/icon-512.png'];
      const shell = ['/', ...Object.keys(bundle).filter((f) => f.startsWith('assets/')).map((f) => `/${f}`), ...publicFiles];
      const version = createHash('sha256').update(shell.join('\n')).digest('hex').slice(0, 12);
      const source = fs
        .readFileSync(`${here}/sw-template.js`, 'utf8')
        .replace('__VERSION__', version)
        .replace('__SHELL__', JSON.stringify(shell));
      this.emitFile({ type: 'asset', fileName: 'sw.js', source });
    },
  };
}

/**
 * Writes a .br and a .gz copy next to every compressible file of the build, so the server hands
 * a phone the compressed bytes without compressing on each request.
 */
function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'pd-precompress',
    apply: 'build',
    configResolved(c) {
      outDir = path.resolve(c.root, c.build.outDir);
    },
    closeBundle() {
      const walk = (dir: string): string[] =>
        fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? walk(path.join(dir, d.name)) : [path.join(dir, d.name)]));
      for (const file of walk(outDir)) {
        // sw.js stays plain: the browser re-checks it byte for byte, and a deploy may patch it.
        if (!/\.(js|css|html|json|webmanifest|svg)$/.test(file) || path.basename(file) === 'sw.js') continue;
        const data = fs.readFileSync(file);
        if (data.length < 1024) continue;
        fs.writeFileSync(`${file}.br`, zlib.brotliCompressSync(data, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }));
        fs.writeFileSync(`${file}.gz`, zlib.gzipSync(data, { level: 9 }));
      }
    },
  };
}

export default defineConfig({
  plugins: [serviceWorker(), precompress()],
  // The app version a crash report carries (client/src/crash-reporter.ts).
  define: { __APP_VERSION__: JSON.stringify((JSON.parse(fs.readFileSync(`${here}/../package.json`, 'utf8')) as { version: string }).version) },
  root: here,
  base: '/',
  // No modulepreload polyfill: every browser that runs es2022 modules preloads them or loads them anyway.
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', sourcemap: false, modulePreload: { polyfill: false } },
  esbuild: { target: 'es2022' },
  server: {
    proxy: {
      '/api': { target: api, changeOrigin: false },
      '/healthz': api,
      '/mcp': api,
    },
  },
});
