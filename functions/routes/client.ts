// The built Lit client, from the same origin as the API: hashed assets cached for good, the shell
// revalidated by ETag (a 304 costs a phone a few hundred bytes), the build's pre-compressed copies
// (.br, .gz) when the browser takes them, unknown paths answered with the shell (client-side
// views), and a strict CSP so that nothing a worker printed could ever run as script.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import type { AppEnv } from '../deps.ts';

export const CLIENT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../client/dist');

export const CSP = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'", "'unsafe-inline'"],
  imgSrc: ["'self'", 'data:'],
  connectSrc: ["'self'"],
  manifestSrc: ["'self'"],
  workerSrc: ["'self'"],
  objectSrc: ["'none'"],
  baseUri: ["'none'"],
  frameAncestors: ["'none'"],
};

const etags = new Map<string, { mtime: number; tag: string }>();

/** A strong ETag of a file's bytes, recomputed when the file changes (a rebuild). */
function etagOf(file: string): string | null {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch {
    return null;
  }
  if (!st.isFile()) return null;
  const hit = etags.get(file);
  if (hit && hit.mtime === st.mtimeMs) return hit.tag;
  const tag = `"${createHash('sha256').update(fs.readFileSync(file)).digest('base64url').slice(0, 22)}"`;
  etags.set(file, { mtime: st.mtimeMs, tag });
  return tag;
}

export function clientRoutes(dir = CLIENT_DIR) {
  const app = new Hono<AppEnv>();
  app.use('*', secureHeaders({ contentSecurityPolicy: CSP, crossOriginEmbedderPolicy: false }));
  const index = path.join(dir, 'index.html');
  app.use(
    '/assets/*',
    serveStatic({
      root: dir,
      precompressed: true,
      onFound: (_p, c) => {
        c.header('cache-control', 'public, max-age=31536000, immutable');
      },
    }),
  );
  // The shell and the other unhashed files: always revalidated, by ETag.
  app.use('*', async function shellEtag(c, next) {
    const file = c.req.path === '/' ? index : path.join(dir, path.normalize(c.req.path));
    const tag = file.startsWith(dir) ? etagOf(file) : null;
    if (tag && c.req.header('if-none-match') === tag) return c.body(null, 304, { etag: tag, 'cache-control': 'no-cache' });
    await next();
    if (tag && c.res.status === 200) c.res.headers.set('etag', tag);
  });
  app.use('*', serveStatic({ root: dir, precompressed: true, onFound: (_p, c) => void c.header('cache-control', 'no-cache') }));
  app.get('*', (c) => {
    if (!fs.existsSync(index)) {
      return c.text('The client is not built: run `npm run build` (npm start does it for you).', 503);
    }
    const tag = etagOf(index);
    if (tag && c.req.header('if-none-match') === tag) return c.body(null, 304, { etag: tag, 'cache-control': 'no-cache' });
    c.header('cache-control', 'no-cache');
    if (tag) c.header('etag', tag);
    return c.html(fs.readFileSync(index, 'utf8'));
  });
  return app;
}
