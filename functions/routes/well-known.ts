// /.well-known/assetlinks.json: the Digital Asset Links statement that lets the Android Trusted Web
// Activity (TWA_PACKAGE_ID, signed with one of TWA_SHA256_FINGERPRINTS) open this origin full screen.
import { Hono } from 'hono';
import type { AppEnv } from '../deps.ts';

export function wellKnownRoutes() {
  return new Hono<AppEnv>().get('/.well-known/assetlinks.json', (c) => {
    const { TWA_PACKAGE_ID: pkg, TWA_SHA256_FINGERPRINTS: prints } = c.var.deps.config;
    if (!pkg || prints.length === 0) {
      return c.json({ error: { code: 'not_found', message: 'no Android app is configured (TWA_PACKAGE_ID, TWA_SHA256_FINGERPRINTS)' } }, 404);
    }
    return c.json([
      {
        relation: ['delegate_permission/common.handle_all_urls'],
        target: { namespace: 'android_app', package_name: pkg, sha256_cert_fingerprints: prints.map((p) => p.toUpperCase()) },
      },
    ]);
  });
}
