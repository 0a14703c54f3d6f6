// Digital Asset Links for the Android Trusted Web Activity.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../core/config.ts';
import { startTestApp } from '../../helpers/app.ts';

const A = Array.from({ length: 32 }, (_, i) => (i * 7).toString(16).padStart(2, '0').toUpperCase()).join(':');
const B = Array.from({ length: 32 }, (_, i) => (255 - i).toString(16).padStart(2, '0')).join(':');

describe('GET /.well-known/assetlinks.json', () => {
  it('states the configured package and every fingerprint, as JSON with a 200 and no redirect', async () => {
    const t = await startTestApp({ TWA_PACKAGE_ID: 'dev.petal.dispatch', TWA_SHA256_FINGERPRINTS: `${A}, ${B}` });
    const res = await t.call('GET', '/.well-known/assetlinks.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual([
      {
        relation: ['delegate_permission/common.handle_all_urls'],
        target: { namespace: 'android_app', package_name: 'dev.petal.dispatch', sha256_cert_fingerprints: [A, B.toUpperCase()] },
      },
    ]);
  });

  it('is served without credentials even when the API needs them', async () => {
    const t = await startTestApp({ OPEN_MODE: '0', DISPATCH_TOKEN: 'a-long-enough-test-token-0123456789', TWA_PACKAGE_ID: 'dev.petal.dispatch', TWA_SHA256_FINGERPRINTS: A });
    expect((await t.call('GET', '/.well-known/assetlinks.json')).status).toBe(200);
  });

  it('is a 404 when no Android app is configured', async () => {
    const t = await startTestApp();
    const res = await t.call('GET', '/.well-known/assetlinks.json');
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });

  it('refuses a malformed fingerprint at start-up', () => {
    expect(() => loadConfig({ TWA_SHA256_FINGERPRINTS: 'AB:CD' })).toThrow(/TWA_SHA256_FINGERPRINTS/);
  });
});
