// npm run twa generates the Android Trusted Web Activity project offline, from the served manifest.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listen, startTestApp } from '../helpers/app.ts';
import { cleanEnv, startEntry } from '../helpers/process.ts';
import { tempDir } from '../helpers/teardown.ts';

describe('npm run twa', () => {
  it('writes a Gradle project whose AndroidManifest.xml names the configured host and package', async () => {
    const t = await startTestApp();
    const { url } = await listen(t);
    const out = path.join(tempDir('pd-twa-'), 'android');
    const run = startEntry('bin/twa.ts', cleanEnv({
      PUBLIC_URL: url,
      TWA_PACKAGE_ID: 'dev.petal.dispatch',
      TWA_HOST: 'dispatch.example.ts.net',
      TWA_OUT: out,
    }));
    const { code } = await run.exited;
    expect(code, run.output()).toBe(0);
    const manifest = fs.readFileSync(path.join(out, 'app/src/main/AndroidManifest.xml'), 'utf8');
    const gradle = fs.readFileSync(path.join(out, 'app/build.gradle'), 'utf8');
    // The manifest names the package, and opens links of the host (resolved from build.gradle's hostName).
    expect(manifest).toContain('package="dev.petal.dispatch"');
    expect(manifest).toContain('android:host="@string/hostName"');
    expect(gradle).toMatch(/hostName: 'dispatch\.example\.ts\.net'/);
    expect(gradle).toContain('applicationId "dev.petal.dispatch"');
    expect(fs.existsSync(path.join(out, 'app/src/main/res/mipmap-xxxhdpi/ic_launcher.png'))).toBe(true);
    const twa = JSON.parse(fs.readFileSync(path.join(out, 'twa-manifest.json'), 'utf8')) as Record<string, unknown>;
    expect(twa).toMatchObject({ packageId: 'dev.petal.dispatch', host: 'dispatch.example.ts.net', enableNotifications: true });
  }, 120_000);
});
