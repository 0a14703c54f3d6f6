// Host and Origin checks (DNS rebinding, MCP's Origin rule), in every mode. A page the user merely
// visits can point its own name at 127.0.0.1 and talk to this server as "same origin": its requests
// then carry the attacker's name in Host. So the server answers only to the names it is known by —
// loopback names, the PUBLIC_URL host, TWA_HOST and ALLOWED_HOSTS — and refuses a state-changing
// request (or any /mcp request) whose Origin is present and is none of them.
import type { MiddlewareHandler } from 'hono';
import type { Config } from '../../core/config.ts';
import { AppError } from '../errors.ts';

/** Paths answered whatever the Host: a liveness probe (Docker, Kubernetes) sends an address. */
const ANY_HOST_PATHS = new Set(['/healthz']);
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A hostname as compared here: lower case, brackets kept for IPv6, no port, no trailing dot. */
export function hostnameOf(hostHeader: string): string | null {
  try {
    const name = new URL(`http://${hostHeader.trim()}`).hostname.toLowerCase();
    return name.endsWith('.') ? name.slice(0, -1) : name;
  } catch {
    return null;
  }
}

export function isLoopbackName(name: string): boolean {
  return name === 'localhost' || name.endsWith('.localhost') || name === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(name);
}

/** The names this server answers to besides loopback: PUBLIC_URL's host, TWA_HOST, ALLOWED_HOSTS, a non-wildcard HOST. */
export function configuredNames(config: Config): { exact: Set<string>; suffixes: string[] } {
  const exact = new Set<string>();
  const suffixes: string[] = [];
  const add = (raw: string | undefined) => {
    if (!raw) return;
    const v = raw.trim().toLowerCase();
    if (v.startsWith('*.')) return void suffixes.push(v.slice(1)); // "*.example.ts.net" → ".example.ts.net"
    const name = hostnameOf(v.includes('://') ? new URL(v).host : v);
    if (name) exact.add(name);
  };
  if (config.PUBLIC_URL) add(new URL(config.PUBLIC_URL).host);
  add(config.TWA_HOST);
  for (const h of config.ALLOWED_HOSTS) add(h);
  if (!['0.0.0.0', '::', '[::]'].includes(config.HOST)) add(config.HOST.includes(':') && !config.HOST.startsWith('[') ? `[${config.HOST}]` : config.HOST);
  return { exact, suffixes };
}

export function hostCheck(config: Config): MiddlewareHandler {
  const { exact, suffixes } = configuredNames(config);
  const isConfigured = (name: string) => exact.has(name) || suffixes.some((s) => name.endsWith(s));
  const isAllowedName = (name: string) => isLoopbackName(name) || isConfigured(name);

  return async function checkHostAndOrigin(c, next) {
    // Host: the raw header (a proxy or app.request() without one falls back to the URL's host).
    const hostHeader = c.req.header('host') ?? new URL(c.req.url).host;
    const name = hostnameOf(hostHeader);
    if (!ANY_HOST_PATHS.has(c.req.path) && (!name || !isAllowedName(name))) {
      throw new AppError(
        421,
        'host_not_allowed',
        `this server does not answer to the host ${JSON.stringify(hostHeader.slice(0, 100))}; add it to ALLOWED_HOSTS if it is yours`,
      );
    }

    const origin = c.req.header('origin');
    const mcp = c.req.path === '/mcp' || c.req.path.startsWith('/mcp/');
    if (origin !== undefined && (mcp || !SAFE_METHODS.has(c.req.method))) {
      if (!originAllowed(origin, hostHeader, isConfigured)) {
        throw new AppError(403, 'origin_not_allowed', `requests from the origin ${JSON.stringify(origin.slice(0, 100))} are refused`);
      }
    }
    await next();
  };
}

/** Same origin as the (already checked) Host, or a configured non-loopback name (a proxy may rewrite Host). "null" never passes. */
function originAllowed(origin: string, hostHeader: string, isConfigured: (name: string) => boolean): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (url.host === hostHeader.trim().toLowerCase()) return true;
  // A loopback origin must be this very origin: another port there is another local app.
  const name = hostnameOf(url.host);
  return name !== null && !isLoopbackName(name) && isConfigured(name);
}
