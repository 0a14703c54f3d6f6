// The built Lit client, from the same origin as the API: hashed assets cached for good, the shell
// never cached, unknown paths answered with the shell (client-side views), and a strict CSP so
// that nothing a worker printed could ever run as script.
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

export function clientRoutes(dir = CLIENT_DIR) {
  const app = new Hono<AppEnv>();
  app.use('*', secureHeaders({ contentSecurityPolicy: CSP, crossOriginEmbedderPolicy: false }));
  const index = path.join(dir, 'index.html');
  app.use(
    '/assets/*',
    serveStatic({
      root: dir,
      onFound: (_p, c) => {
        c.header('cache-control', 'public, max-age=31536000, immutable');
      },
    }),
  );
  app.use('*', serveStatic({ root: dir, onFound: (_p, c) => void c.header('cache-control', 'no-cache') }));
  app.get('*', (c) => {
    if (!fs.existsSync(index)) {
      return c.text('The client is not built: run `npm run build` (npm start does it for you).', 503);
    }
    c.header('cache-control', 'no-cache');
    return c.html(fs.readFileSync(index, 'utf8'));
  });
  return app;
}
