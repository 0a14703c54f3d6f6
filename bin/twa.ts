// `npm run twa`: generates the Android Trusted Web Activity project (a Gradle project that opens
// this PWA full screen) with @bubblewrap/core, offline apart from reading the served web manifest
// and icons. Fills the committed template client/twa-manifest.json from the environment. Building it
// needs the Android SDK; `npm run apk` (bin/apk.ts) builds a smaller TWA here, offline, signed with the
// same keystore and alias, so one assetlinks.json fingerprint serves both.
//   PUBLIC_URL        where the server is reached (its manifest and icons are read from there)
//   TWA_PACKAGE_ID    the Android package id (required)
//   TWA_HOST          the host the phone opens (default: PUBLIC_URL's host)
//   TWA_KEYSTORE      the signing key path (default: ./android.keystore)
//   TWA_OUT           where to write the project (default: .twa/, git-ignored)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConsoleLog, fetchUtils, TwaGenerator, TwaManifest } from '@bubblewrap/core';

const here = path.dirname(fileURLToPath(import.meta.url));

function fail(message: string): never {
  process.stderr.write(`npm run twa: ${message}\n`);
  process.exit(2);
}

export async function generateTwa(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const base = env.PUBLIC_URL ?? `http://127.0.0.1:${env.PORT ?? 7777}`;
  const packageId = env.TWA_PACKAGE_ID ?? fail('set TWA_PACKAGE_ID (e.g. dev.example.dispatch)');
  const host = env.TWA_HOST ?? new URL(base).host;
  const out = path.resolve(env.TWA_OUT ?? '.twa');
  const values: Record<string, string> = { TWA_PACKAGE_ID: packageId, TWA_HOST: host, TWA_KEYSTORE: path.resolve(env.TWA_KEYSTORE ?? 'android.keystore') };
  const template = JSON.parse(
    fs.readFileSync(path.join(here, '..', 'client', 'twa-manifest.json'), 'utf8').replace(/\$\{(\w+)\}/g, (_, k: string) => values[k] ?? ''),
  ) as Record<string, unknown>;
  delete template['//'];

  // node-fetch: the default fetch-h2 engine keeps sockets open and the process never exits.
  fetchUtils.setFetchEngine('node-fetch');
  const manifestUrl = new URL('/manifest.webmanifest', base);
  const res = await fetchUtils.fetch(manifestUrl.toString());
  if (!res.ok) fail(`cannot read ${manifestUrl}: HTTP ${res.status} (is the server running at PUBLIC_URL?)`);
  const fromWeb = TwaManifest.fromWebManifestJson(manifestUrl, (await res.json()) as never);
  const twa = new TwaManifest({ ...fromWeb.toJson(), ...template, webManifestUrl: manifestUrl.toString() } as never);
  const invalid = twa.validate();
  if (invalid) fail(invalid);

  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  await new TwaGenerator().createTwaProject(out, twa, new ConsoleLog('twa'));
  await twa.saveToFile(path.join(out, 'twa-manifest.json'));
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = await generateTwa();
  process.stdout.write(`Android project written to ${out}\n`);
}
