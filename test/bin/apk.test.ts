// npm run apk builds the Trusted Web Activity as a signed APK, offline, with Debian's tools, and the
// server's /.well-known/assetlinks.json names its certificate. The APK is read back with the same
// tools a reviewer would use (apksigner, aapt, dexdump, baksmali); no phone runs it. Where the tools
// are absent the build's tests are skipped, saying which Debian packages to install.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUILD_TOOLS, CHECK_TOOLS, installCommand, missingTools } from '../../bin/apk/tools.ts';
import { startTestApp } from '../helpers/app.ts';
import { cleanEnv, startEntry } from '../helpers/process.ts';
import { tempDir } from '../helpers/teardown.ts';
import { ownReferenceProblems, registerProblems } from './smali-registers.ts';

const HOST = 'dispatch.example.ts.net';
const PACKAGE = 'dev.petal.dispatch';
const CLASS = 'petal.dispatch.twa.LauncherActivity';

async function apk(env: Record<string, string>) {
  const run = startEntry('bin/apk.ts', cleanEnv(env));
  const { code } = await run.exited;
  return { code, output: run.output() };
}

const tool = (name: string, args: string[]) => execFileSync(name, args, { encoding: 'utf8', maxBuffer: 16 << 20 });

/** `aapt dump xmltree` as a tree: elements with their attributes' printed values. */
interface Node { name: string; attrs: Record<string, string>; children: Node[] }
function xmltree(text: string): Node {
  const root: Node = { name: '', attrs: {}, children: [] };
  const stack: { depth: number; node: Node }[] = [{ depth: -1, node: root }];
  for (const line of text.split('\n')) {
    const m = /^( *)([EA]): (.*)$/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length;
    while (stack.at(-1)!.depth >= depth) stack.pop();
    const parent = stack.at(-1)!.node;
    if (m[2] === 'E') {
      const node: Node = { name: m[3]!.split(' ')[0]!, attrs: {}, children: [] };
      parent.children.push(node);
      stack.push({ depth, node });
    } else {
      const a = /^(?:android:)?([\w]+)(?:\(0x[0-9a-f]+\))?=(.*)$/.exec(m[3]!)!;
      parent.attrs[a[1]!] = a[2]!.replace(/^"(.*)" \(Raw: .*\)$/, '$1');
    }
  }
  return root;
}
const all = (n: Node, name: string): Node[] => [...(n.name === name ? [n] : []), ...n.children.flatMap((c) => all(c, name))];
const TRUE = '(type 0x12)0xffffffff';

describe('npm run apk refuses what it cannot build, before any tool runs', () => {
  it('a bad host or package id is exit 2 naming that variable, and no APK is written', async () => {
    const out = path.join(tempDir('pd-apk-bad-'), 'dist');
    const badHost = await apk({ TWA_HOST: `https://${HOST}/`, TWA_PACKAGE_ID: PACKAGE, TWA_OUT: out });
    expect(badHost.code, badHost.output).toBe(2);
    expect(badHost.output).toMatch(/TWA_HOST \("https:\/\/dispatch\.example\.ts\.net\/"\) must be the host name/);
    expect(badHost.output).not.toContain('TWA_PACKAGE_ID');
    const badPackage = await apk({ TWA_HOST: HOST, TWA_PACKAGE_ID: 'dev.class.dispatch', TWA_OUT: out });
    expect(badPackage.code, badPackage.output).toBe(2);
    expect(badPackage.output).toMatch(/TWA_PACKAGE_ID \("dev\.class\.dispatch"\) must be an Android package id/);
    expect(badPackage.output).not.toContain('TWA_HOST');
    expect(fs.existsSync(out)).toBe(false);
  });

  it('without the tools on the PATH it names the Debian packages to install', async () => {
    const out = path.join(tempDir('pd-apk-notools-'), 'dist');
    const r = await apk({ TWA_HOST: HOST, TWA_PACKAGE_ID: PACKAGE, TWA_OUT: out, PATH: tempDir('pd-empty-path-') });
    expect(r.code, r.output).toBe(2);
    expect(r.output).toMatch(/missing smali, aapt, .*zipalign, apksigner, keytool/);
    expect(r.output).toMatch(/apt-get install -y --no-install-recommends libsmali-java aapt (android-framework-res )?zipalign apksigner default-jre-headless/);
    expect(r.output).toContain('npm run apk -- --install-tools');
    expect(fs.existsSync(out)).toBe(false);
  });
});

const absent = missingTools([...BUILD_TOOLS, ...CHECK_TOOLS]);
const skipped = absent.length ? ` (SKIPPED: no ${absent.map((t) => t.name).join(', ')} here; ${installCommand(absent).join(' ')})` : '';
if (absent.length) process.stderr.write(`test/bin/apk.test.ts: the APK itself is not built or checked${skipped}\n`);

describe.skipIf(absent.length > 0)(`the APK npm run apk writes${skipped}`, () => {
  let dir: string;
  let keystore: string;
  let first: { code: number | null; output: string };
  let file: string;
  let certSha256: string;

  beforeAll(async () => {
    dir = tempDir('pd-apk-');
    keystore = path.join(dir, 'keys', 'test.keystore');
    first = await apk({ TWA_HOST: HOST, TWA_PACKAGE_ID: PACKAGE, TWA_OUT: path.join(dir, 'dist'), TWA_KEYSTORE: keystore, TWA_VERSION_CODE: '7' });
    file = path.join(dir, 'dist', 'petal-dispatch.apk');
    const certs = tool('apksigner', ['verify', '--print-certs', file]);
    certSha256 = /^Signer #1 certificate SHA-256 digest: ([0-9a-f]{64})$/m.exec(certs)![1]!.toUpperCase().match(/../g)!.join(':');
  }, 180_000);

  it('is signed (v1, v2 and v3) with a key made and kept in TWA_KEYSTORE, and apksigner verifies it', () => {
    expect(first.code, first.output).toBe(0);
    expect(first.output).toMatch(/created .*test\.keystore\. Keep it/);
    expect(fs.statSync(keystore).mode & 0o777).toBe(0o600);
    const verify = tool('apksigner', ['verify', '--verbose', file]);
    expect(verify).toMatch(/^Verifies$/m);
    for (const v of ['v1 scheme (JAR signing)', 'v2 scheme (APK Signature Scheme v2)', 'v3 scheme (APK Signature Scheme v3)']) {
      expect(verify).toContain(`Verified using ${v}: true`);
    }
    expect(first.output).toContain('signed with scheme v1 + v2 + v3');
    // Stored entries 4-byte aligned and resources.arsc uncompressed: Android 11+ refuses anything else.
    const align = tool('zipalign', ['-c', '-v', '-p', '4', file]);
    expect(align).toMatch(/^Verification successful$/m);
    expect(align).toMatch(/ resources\.arsc \(OK\)$/m);
  });

  it('prints the certificate fingerprint and the exact lines for secrets.env', () => {
    expect(first.output).toContain(`Certificate SHA-256: ${certSha256}`);
    expect(first.output.split('\n')).toContain(`TWA_SHA256_FINGERPRINTS=${certSha256}`);
    expect(first.output.split('\n')).toContain(`TWA_PACKAGE_ID=${PACKAGE}`);
  });

  it('aapt: the package id, its version, a launchable activity, minSdk 21 and targetSdk 35', () => {
    const badging = tool('aapt', ['dump', 'badging', file]);
    expect(badging).toMatch(new RegExp(`^package: name='${PACKAGE}' versionCode='7' versionName='0\\.1\\.0'`, 'm'));
    expect(badging).toMatch(/^sdkVersion:'21'$/m);
    expect(badging).toMatch(/^targetSdkVersion:'35'$/m);
    expect(badging).toMatch(new RegExp(`^launchable-activity: name='${CLASS}'\\s+label='dispatch'`, 'm'));
    expect(badging).toMatch(/^application-label:'petal-dispatch'$/m);
  });

  it('its manifest opens https://TWA_HOST links (autoVerify), states the asset links and may see the browsers', () => {
    const manifest = xmltree(tool('aapt', ['dump', 'xmltree', file, 'AndroidManifest.xml']));
    const [activity] = all(manifest, 'activity').filter((a) => a.attrs.name === CLASS);
    expect(activity!.attrs.exported).toBe(TRUE);
    const filters = all(activity!, 'intent-filter');
    const names = (f: Node, el: string) => all(f, el).map((n) => n.attrs.name);
    expect(filters.some((f) => names(f, 'action').includes('android.intent.action.MAIN') && names(f, 'category').includes('android.intent.category.LAUNCHER'))).toBe(true);
    const links = filters.filter((f) => f.attrs.autoVerify === TRUE);
    expect(links).toHaveLength(1);
    expect(names(links[0]!, 'action')).toEqual(['android.intent.action.VIEW']);
    expect(names(links[0]!, 'category').sort()).toEqual(['android.intent.category.BROWSABLE', 'android.intent.category.DEFAULT']);
    expect(all(links[0]!, 'data').map((d) => d.attrs)).toEqual([{ scheme: 'https', host: HOST }]);
    // Android 11+ package visibility: the Custom Tabs services and the browsers.
    const queried = all(all(manifest, 'queries')[0]!, 'action').map((a) => a.attrs.name);
    expect(queried).toEqual(['android.support.customtabs.action.CustomTabsService', 'android.intent.action.VIEW']);

    // <meta-data android:name="asset_statements" android:resource="@string/asset_statements">, whose
    // value is the statement naming https://TWA_HOST.
    const [meta] = all(manifest, 'meta-data').filter((m) => m.attrs.name === 'asset_statements');
    const id = /^@(0x[0-9a-f]{8})$/.exec(meta!.attrs.resource!)![1]!;
    const resources = tool('aapt', ['dump', '--values', 'resources', file]);
    const entry = new RegExp(`resource ${id} ${PACKAGE.replace(/\./g, '\\.')}:string/asset_statements: .*\\n\\s+\\(string8\\) "(.*)"\\n`).exec(resources);
    expect(entry, resources).not.toBeNull();
    expect(JSON.parse(entry![1]!.replace(/\\(.)/g, '$1'))).toEqual([
      { relation: ['delegate_permission/common.handle_all_urls'], target: { namespace: 'web', site: `https://${HOST}` } },
    ]);
  });

  it("carries the web manifest's names, start URL, colours and icons", () => {
    const resources = tool('aapt', ['dump', '--values', 'resources', file]);
    const value = (name: string) => new RegExp(`:${name}: .*\\n\\s+\\((?:string8|color)\\) "?([^"\\n]*)"?\\n`).exec(resources)?.[1];
    const web = JSON.parse(fs.readFileSync('client/public/manifest.webmanifest', 'utf8')) as Record<string, string>;
    expect(value('string/app_name')).toBe(web.name);
    expect(value('string/launcher_name')).toBe(web.short_name);
    expect(value('string/launch_url')).toBe(new URL(web.start_url!, `https://${HOST}/`).href);
    expect(value('color/theme_color')).toBe(`#ff${web.theme_color!.slice(1).toLowerCase()}`);
    const listing = tool('aapt', ['list', file]).split('\n');
    expect(listing).toEqual(expect.arrayContaining(['classes.dex', 'res/mipmap-xxxhdpi-v4/ic_launcher.png', 'res/mipmap-xxxhdpi-v4/ic_maskable.png', 'res/mipmap-anydpi-v26/ic_launcher.xml']));
  });

  it('dexdump: the launcher binds the Custom Tabs service, asks it for a session and launches the TWA with it', () => {
    const dump = tool('dexdump', ['-d', file]);
    expect(dump).toContain("Class descriptor  : 'Lpetal/dispatch/twa/LauncherActivity;'");
    expect(dump).toContain("Class descriptor  : 'Lpetal/dispatch/twa/CustomTabs;'");
    expect(dump).toContain("Superclass        : 'Landroid/app/Activity;'");
    expect(dump).toMatch(/Interfaces +-\n +#0 +: 'Landroid\/content\/ServiceConnection;'/);
    // ServiceConnection's two abstract methods and the lifecycle overrides, with the framework's signatures.
    for (const [name, type, access] of [
      ['onServiceConnected', '(Landroid/content/ComponentName;Landroid/os/IBinder;)V', 'PUBLIC'],
      ['onServiceDisconnected', '(Landroid/content/ComponentName;)V', 'PUBLIC'],
      ['onCreate', '(Landroid/os/Bundle;)V', 'PROTECTED'],
      ['onRestart', '()V', 'PROTECTED'],
      ['onDestroy', '()V', 'PROTECTED'],
    ]) {
      expect(dump).toContain(`name          : '${name}'\n      type          : '${type}'\n      access        : 0x000${access === 'PUBLIC' ? 1 : 4} (${access})`);
    }
    const method = (name: string) => dump.split(/\n\s+name\s+: '/).find((b) => b.startsWith(`${name}'`)) ?? '';
    const inOrder = (text: string, parts: string[]) => {
      const at = parts.map((p) => text.indexOf(p));
      expect(at, parts.join(' … ')).not.toContain(-1);
      expect([...at].sort((a, b) => a - b)).toEqual(at);
    };
    // onCreate: Intent(ACTION_CUSTOM_TABS_CONNECTION).setPackage(browser), bindService(…, this, BIND_AUTO_CREATE).
    inOrder(method('onCreate'), [
      '"androidx.browser.trusted.category.TrustedWebActivities"',
      'Lpetal/dispatch/twa/CustomTabs;.provider:',
      '"android.support.customtabs.action.CustomTabsService"',
      'Landroid/content/Intent;.<init>:(Ljava/lang/String;)V',
      'Landroid/content/Intent;.setPackage:',
      'const/4 v0, #int 1',
      'Landroid/content/Context;.bindService:(Landroid/content/Intent;Landroid/content/ServiceConnection;I)Z',
    ]);
    // onServiceConnected: a Binder as the session, newSession with it, then the TWA.
    inOrder(method('onServiceConnected'), ['Landroid/os/Binder;.<init>:()V', 'Lpetal/dispatch/twa/CustomTabs;.newSession:', 'launchTwa:', 'openCustomTab:']);
    // ICustomTabsService.newSession(callback) is transaction 3: interface token, callback binder.
    inOrder(method('newSession'), [
      '"android.support.customtabs.ICustomTabsService"',
      'Landroid/os/Parcel;.writeInterfaceToken:',
      'Landroid/os/Parcel;.writeStrongBinder:',
      'const/4 v2, #int 3',
      'Landroid/os/IBinder;.transact:(ILandroid/os/Parcel;Landroid/os/Parcel;I)Z',
      'Landroid/os/Parcel;.readException:',
      'Landroid/os/Parcel;.readInt:',
    ]);
    inOrder(method('tabIntent'), ['"android.intent.action.VIEW"', 'Landroid/content/Intent;.setPackage:', '"android.support.customtabs.extra.SESSION"', 'Landroid/os/Bundle;.putBinder:', '"android.support.customtabs.extra.TOOLBAR_COLOR"']);
    inOrder(method('launchTwa'), ['Lpetal/dispatch/twa/CustomTabs;.tabIntent:', '"android.support.customtabs.extra.LAUNCH_AS_TRUSTED_WEB_ACTIVITY"', 'const/4 v2, #int 1', 'putExtra:(Ljava/lang/String;Z)', 'start:', 'openBrowser:']);
    // Every start of an activity is guarded: no browser is a fallback, never a crash.
    expect(method('start')).toMatch(/Landroid\/content\/ActivityNotFoundException; -> 0x/);
    expect(dump.match(/Landroid\/app\/Activity;\.startActivity:/g)).toHaveLength(1);
  });

  it("baksmali's analysis finds nothing the device's verifier or linker would refuse", () => {
    const out = tempDir('pd-baksmali-');
    tool('baksmali', ['disassemble', '-b', '', '-r', 'ARGS', '--debug-info', 'false', '-o', out, file]);
    const dir = path.join(out, 'petal/dispatch/twa');
    const classes = Object.fromEntries(fs.readdirSync(dir).sort().map((c) => [c, fs.readFileSync(path.join(dir, c), 'utf8')]));
    expect(Object.keys(classes)).toEqual(['CustomTabs.smali', 'LauncherActivity.smali']);
    expect(Object.values(classes).flatMap(registerProblems)).toEqual([]);
    expect(ownReferenceProblems(classes)).toEqual([]);
  });

  it('a second build with the kept keystore is signed by the same key, byte for byte the same APK', async () => {
    const again = await apk({ TWA_HOST: HOST, TWA_PACKAGE_ID: PACKAGE, TWA_OUT: path.join(dir, 'again'), TWA_KEYSTORE: keystore, TWA_VERSION_CODE: '7' });
    expect(again.code, again.output).toBe(0);
    expect(again.output).toMatch(/Signing key: .*test\.keystore \(kept\)/);
    expect(again.output).toContain(`TWA_SHA256_FINGERPRINTS=${certSha256}`);
    expect(fs.readFileSync(path.join(dir, 'again', 'petal-dispatch.apk')).equals(fs.readFileSync(file))).toBe(true);
  }, 120_000);

  it("with the printed line, /.well-known/assetlinks.json names this APK's package and certificate", async () => {
    const line = first.output.split('\n').find((l) => l.startsWith('TWA_SHA256_FINGERPRINTS='))!;
    const t = await startTestApp({ TWA_PACKAGE_ID: PACKAGE, TWA_SHA256_FINGERPRINTS: line.slice(line.indexOf('=') + 1) });
    const res = await t.call('GET', '/.well-known/assetlinks.json');
    expect(res.status).toBe(200);
    const badging = tool('aapt', ['dump', 'badging', file]);
    expect(await res.json()).toEqual([
      {
        relation: ['delegate_permission/common.handle_all_urls'],
        target: { namespace: 'android_app', package_name: /^package: name='([^']+)'/.exec(badging)![1], sha256_cert_fingerprints: [certSha256] },
      },
    ]);
  });
});
