// The APK from android/ (smali sources, manifest and resource templates) and the PWA's icons: fill
// the templates, assemble the DEX (smali), link (aapt, against Android's framework resources),
// align (zipalign), sign (apksigner, with a keytool-made key when there is none) and verify.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MIN_SDK, repoRoot, TARGET_SDK, type ApkOptions, type WebApp } from './options.ts';
import { ApkError, BUILD_TOOLS, locate, run } from './tools.ts';

export const ANDROID_DIR = path.join(repoRoot, 'android');
export const APK_NAME = 'petal-dispatch.apk';

export interface BuiltApk {
  file: string;
  bytes: number;
  minSdk: number;
  targetSdk: number;
  /** The signature schemes apksigner verified, e.g. ['v1', 'v2', 'v3']. */
  schemes: string[];
  /** The signing certificate's SHA-256, as assetlinks.json spells it (AB:CD:…, upper case). */
  sha256: string;
  keystoreCreated: boolean;
}

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
/** A <string> value as aapt reads it: backslash escapes for \ " ' and newlines, a leading @ or ? escaped. */
const aaptString = (s: string) => xml(s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/'/g, "\\'").replace(/\n/g, '\\n').replace(/^([@?])/, '\\$1'));

/** Fills {{NAME}} placeholders; one the values do not have is an error, so a template cannot drift. */
function fill(file: string, values: Record<string, string>): string {
  return fs.readFileSync(file, 'utf8').replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    const v = values[name];
    if (v === undefined) throw new ApkError(`${path.relative(repoRoot, file)}: no value for {{${name}}}`);
    return v;
  });
}

/** The templates filled into `work`: AndroidManifest.xml and res/ (with the icons), ready for aapt. */
function stage(work: string, o: ApkOptions, app: WebApp): void {
  const manifest = { PACKAGE_ID: o.packageId, VERSION_CODE: String(o.versionCode), VERSION_NAME: o.versionName, MIN_SDK: String(MIN_SDK), TARGET_SDK: String(TARGET_SDK), HOST: o.host };
  fs.writeFileSync(path.join(work, 'AndroidManifest.xml'), fill(path.join(ANDROID_DIR, 'AndroidManifest.xml'), Object.fromEntries(Object.entries(manifest).map(([k, v]) => [k, xml(v)]))));
  const res = { APP_NAME: app.appName, LAUNCHER_NAME: app.launcherName, LAUNCH_URL: app.launchUrl, HOST: o.host, THEME_COLOR: app.themeColor, BACKGROUND_COLOR: app.backgroundColor };
  const resValues = Object.fromEntries(Object.entries(res).map(([k, v]) => [k, aaptString(v)]));
  const from = path.join(ANDROID_DIR, 'res');
  for (const rel of fs.readdirSync(from, { recursive: true, encoding: 'utf8' })) {
    const src = path.join(from, rel);
    if (!fs.statSync(src).isFile()) continue;
    // The adaptive icon is the maskable one: without it, only the plain icon.
    if (rel.startsWith('mipmap-anydpi-v26') && !app.maskableIcon) continue;
    fs.mkdirSync(path.dirname(path.join(work, 'res', rel)), { recursive: true });
    fs.writeFileSync(path.join(work, 'res', rel), rel.endsWith('.xml') ? fill(src, resValues) : fs.readFileSync(src));
  }
  const mipmap = path.join(work, 'res', 'mipmap-xxxhdpi');
  fs.mkdirSync(mipmap, { recursive: true });
  fs.copyFileSync(app.icon, path.join(mipmap, 'ic_launcher.png'));
  if (app.maskableIcon) fs.copyFileSync(app.maskableIcon, path.join(mipmap, 'ic_maskable.png'));
}

/** Creates the signing key when the keystore does not exist yet; true when it did. */
async function ensureKeystore(keytool: string, o: ApkOptions, env: NodeJS.ProcessEnv): Promise<boolean> {
  if (fs.existsSync(o.keystore)) return false;
  fs.mkdirSync(path.dirname(o.keystore), { recursive: true });
  await run(keytool, [
    '-genkeypair', '-noprompt', '-keystore', o.keystore, '-storetype', 'PKCS12', '-alias', o.keyAlias,
    '-keyalg', 'RSA', '-keysize', '2048', '-validity', '10000', '-dname', 'CN=petal-dispatch',
    '-storepass:env', 'TWA_KEYSTORE_PASSWORD', '-keypass:env', 'TWA_KEYSTORE_PASSWORD',
  ], { env });
  fs.chmodSync(o.keystore, 0o600);
  return true;
}

/** Builds, signs and verifies the APK, then writes it to `o.out`. */
export async function buildApk(o: ApkOptions, app: WebApp): Promise<BuiltApk> {
  const tool = Object.fromEntries(BUILD_TOOLS.map((t) => [t.name, locate(t) ?? '']));
  const missing = BUILD_TOOLS.filter((t) => !tool[t.name]);
  if (missing.length) throw new ApkError(`missing ${missing.map((t) => t.name).join(', ')}`);
  // The password reaches keytool and apksigner through their environment, never their arguments.
  const env = { ...process.env, TWA_KEYSTORE_PASSWORD: o.keystorePassword };
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'pd-apk-'));
  try {
    stage(work, o, app);
    fs.mkdirSync(path.join(work, 'dex'));
    await run(tool.smali!, ['assemble', '--api', String(MIN_SDK), '-o', path.join(work, 'dex', 'classes.dex'), path.join(ANDROID_DIR, 'smali')]);
    const unsigned = path.join(work, 'unsigned.apk');
    // The last argument is a folder whose files go in as they are: classes.dex at the APK's root.
    await run(tool.aapt!, ['package', '-f', '--no-crunch', '-M', path.join(work, 'AndroidManifest.xml'), '-S', path.join(work, 'res'), '-I', tool['framework-res.apk']!, '-F', unsigned, path.join(work, 'dex')]);
    // 4-byte alignment of stored entries: Android 11+ refuses an unaligned resources.arsc.
    const aligned = path.join(work, 'aligned.apk');
    await run(tool.zipalign!, ['-f', '-p', '4', unsigned, aligned]);

    const keystoreCreated = await ensureKeystore(tool.keytool!, o, env);
    const signed = path.join(work, 'signed.apk');
    // v1 (JAR) because minSdk 21 < 24, where v2 begins; v3 for key rotation later; no v4 (.idsig, for adb streaming).
    await run(tool.apksigner!, [
      'sign', '--ks', o.keystore, '--ks-key-alias', o.keyAlias, '--ks-pass', 'env:TWA_KEYSTORE_PASSWORD', '--key-pass', 'env:TWA_KEYSTORE_PASSWORD',
      '--v1-signing-enabled', 'true', '--v2-signing-enabled', 'true', '--v3-signing-enabled', 'true', '--v4-signing-enabled', 'false',
      '--out', signed, aligned,
    ], { env }).catch((err: Error) => {
      throw new ApkError(`cannot sign with ${o.keystore} (is TWA_KEYSTORE_PASSWORD right, and TWA_KEY_ALIAS=${o.keyAlias} a key in it?): ${err.message}`);
    });
    const { stdout } = await run(tool.apksigner!, ['verify', '--verbose', '--print-certs', signed]);
    const verified = signerOutput(stdout);

    fs.mkdirSync(o.out, { recursive: true });
    const file = path.join(o.out, APK_NAME);
    fs.copyFileSync(signed, `${file}.part`);
    fs.renameSync(`${file}.part`, file);
    return { file, bytes: fs.statSync(file).size, minSdk: MIN_SDK, targetSdk: TARGET_SDK, ...verified, keystoreCreated };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** The schemes and the first signer's SHA-256 from `apksigner verify --verbose --print-certs`. */
export function signerOutput(stdout: string): { schemes: string[]; sha256: string } {
  if (!/^Verifies$/m.test(stdout)) throw new ApkError(`apksigner does not verify the APK:\n${stdout}`);
  const schemes = [...stdout.matchAll(/^Verified using (v\d) scheme[^:]*: true$/gm)].map((m) => m[1]!);
  const hex = /^Signer #1 certificate SHA-256 digest: ([0-9a-f]{64})$/m.exec(stdout)?.[1];
  if (!hex) throw new ApkError(`apksigner printed no certificate SHA-256:\n${stdout}`);
  return { schemes, sha256: hex.toUpperCase().match(/../g)!.join(':') };
}
