// Auth (D-14, D-7). Open mode trusts the network and is the default only on loopback. Otherwise a
// request needs Authorization: Bearer $DISPATCH_TOKEN, or an X-Authentik-Username header that is
// believed only from an address in TRUSTED_PROXIES.
import { timingSafeEqual, createHash } from 'node:crypto';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { MiddlewareHandler } from 'hono';
import type { Config } from '../../core/config.ts';
import { AppError } from '../errors.ts';

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export function isOpenMode(config: Config): boolean {
  return config.OPEN_MODE ?? isLoopback(config.HOST);
}

/** Why the server must not start with this configuration, or null. */
export function startupRefusal(config: Config): string | null {
  const open = isOpenMode(config);
  if (open && !isLoopback(config.HOST) && !config.ALLOW_OPEN_NETWORK) {
    return `refusing to serve ${config.HOST} in open mode (no authentication) beyond loopback. Set DISPATCH_TOKEN or TRUSTED_PROXIES and OPEN_MODE=0, or ALLOW_OPEN_NETWORK=1 if this network is trusted (e.g. a tailnet).`;
  }
  if (!open && !config.DISPATCH_TOKEN && config.TRUSTED_PROXIES.length === 0) {
    return 'authentication is on (OPEN_MODE=0 or a non-loopback HOST) but nothing can authenticate: set DISPATCH_TOKEN or TRUSTED_PROXIES.';
  }
  return null;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

function remoteAddress(c: Parameters<MiddlewareHandler>[0]): string | undefined {
  try {
    const a = getConnInfo(c).remote.address;
    return a?.startsWith('::ffff:') ? a.slice(7) : a;
  } catch {
    return undefined; // no socket (app.request in tests): never a trusted proxy
  }
}

export type AuthVariables = { user?: string };

export function auth(config: Config): MiddlewareHandler<{ Variables: AuthVariables }> {
  const open = isOpenMode(config);
  const expected = config.DISPATCH_TOKEN ? digest(`Bearer ${config.DISPATCH_TOKEN}`) : null;
  const proxies = new Set(config.TRUSTED_PROXIES);
  return async function authenticate(c, next) {
    const header = c.req.header('authorization');
    const tokenOk = !!(expected && header && timingSafeEqual(digest(header), expected));
    const user = c.req.header('x-authentik-username')?.trim();
    const from = remoteAddress(c);
    // What comes through the proxy is only as trusted as the user the proxy names: a request from its
    // address without one is refused, in open mode too (a proxy on loopback would otherwise open
    // every route to whoever reaches the proxy). The user is who a decision is journalled as.
    if (from && proxies.has(from)) {
      if (user) {
        c.set('user', user);
        return next();
      }
      if (tokenOk) return next();
      throw new AppError(401, 'proxy_user_missing', 'a request through the trusted proxy must carry X-Authentik-Username');
    }
    if (open || tokenOk) return next();
    if (user) throw new AppError(401, 'untrusted_proxy', 'X-Authentik-Username is only accepted from a trusted proxy');
    throw new AppError(401, 'unauthorized', 'send Authorization: Bearer <DISPATCH_TOKEN>');
  };
}
