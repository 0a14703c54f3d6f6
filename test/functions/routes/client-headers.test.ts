// The client's pages carry the Content-Security-Policy the README states: scripts only from the app
// itself (no inline script, no eval), nothing framed, no plugins.
import { describe, expect, it } from 'vitest';
import { CLIENT_DIR } from '../../../functions/routes/client.ts';
import { startTestApp } from '../../helpers/app.ts';

function directives(header: string | null): Record<string, string[]> {
  return Object.fromEntries(
    (header ?? '')
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...values]) => [name!, values]),
  );
}

describe('the Content-Security-Policy', () => {
  it("is on the app shell: script-src 'self' only, no inline script, no eval, no framing, no objects", async () => {
    const t = await startTestApp({}, undefined, CLIENT_DIR);
    for (const path of ['/', '/index.html']) {
      const res = await t.call('GET', path);
      expect(res.status, path).toBe(200);
      const csp = directives(res.headers.get('content-security-policy'));
      expect(csp['script-src'], path).toEqual(["'self'"]);
      expect(csp['default-src']).toEqual(["'self'"]);
      expect(csp['object-src']).toEqual(["'none'"]);
      expect(csp['frame-ancestors']).toEqual(["'none'"]);
      expect(JSON.stringify(csp)).not.toMatch(/unsafe-eval/);
      // No inline script in the shell itself (it would be blocked).
      expect(await res.text()).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/i);
    }
  });
});
