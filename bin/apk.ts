// `npm run apk [-- --install-tools]`: the Android app — a Trusted Web Activity over the PWA — as a
// signed APK, built offline from the repository with Debian's tools (README "Installable PWA and the
// Android app"). Exit 0 with the APK and its certificate's fingerprint; exit 2 naming what is wrong.
//   TWA_HOST               the host the phone opens over HTTPS (default: PUBLIC_URL's, if https)
//   TWA_PACKAGE_ID         the Android package id (required)
//   TWA_OUT                where the APK goes (default: dist/)
//   TWA_KEYSTORE           the signing key (default: android.keystore, made when absent, then kept)
//   TWA_KEYSTORE_PASSWORD  its password (default: android), TWA_KEY_ALIAS its key (petal-dispatch)
//   TWA_VERSION_CODE       the version code, raised for each update (default 1); TWA_VERSION_NAME
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApk } from './apk/build.ts';
import { apkOptions, webApp } from './apk/options.ts';
import { ApkError, BUILD_TOOLS, installCommand, installTools, missingTools } from './apk/tools.ts';

async function main(argv: string[]): Promise<void> {
  const unknown = argv.filter((a) => a !== '--install-tools');
  if (unknown.length) throw new ApkError(`unknown argument ${unknown[0]} (the only one is --install-tools)`);
  const options = apkOptions(process.env);
  const app = webApp(options.host);

  let missing = missingTools(BUILD_TOOLS);
  if (missing.length && argv.includes('--install-tools')) {
    await installTools(missing);
    missing = missingTools(BUILD_TOOLS);
  }
  if (missing.length) {
    throw new ApkError(
      `missing ${missing.map((t) => t.name).join(', ')}; install the Debian packages:\n    ${installCommand(missing).join(' ')}\n` +
        '  (as root: npm run apk -- --install-tools)',
    );
  }

  const apk = await buildApk(options, app);
  const rel = (p: string) => (path.relative(process.cwd(), p).startsWith('..') ? p : path.relative(process.cwd(), p));
  const out = [
    `APK: ${rel(apk.file)} (${(apk.bytes / 1024).toFixed(1)} KB), ${options.packageId} version ${options.versionCode} (${options.versionName}), opens ${app.launchUrl}`,
    `     minSdk ${apk.minSdk}, targetSdk ${apk.targetSdk}, signed with scheme ${apk.schemes.join(' + ')}`,
    apk.keystoreCreated
      ? `Signing key: created ${rel(options.keystore)}. Keep it (and back it up): an update must be signed with the same key, a new key means uninstalling the app first.`
      : `Signing key: ${rel(options.keystore)} (kept).`,
    ...(apk.keystoreCreated && options.passwordIsDefault ? ['             Its password is the default, "android" (TWA_KEYSTORE_PASSWORD sets another for a new keystore).'] : []),
    `Certificate SHA-256: ${apk.sha256}`,
    '',
    "For /.well-known/assetlinks.json to vouch for this app, put these in the service's secrets.env and restart it",
    '(another key already listed there? keep it too, comma-separated):',
    `TWA_PACKAGE_ID=${options.packageId}`,
    `TWA_SHA256_FINGERPRINTS=${apk.sha256}`,
  ];
  process.stdout.write(`${out.join('\n')}\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    await main(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof ApkError)) throw err;
    process.stderr.write(`npm run apk: ${err.message}\n`);
    process.exit(2);
  }
}
