// What `npm run apk` builds: the environment (validated, each bad variable named) and the PWA's web
// manifest (client/public/manifest.webmanifest: names, start URL, colours, icons), read from the repo.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { ApkError } from './tools.ts';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The SDK levels the APK declares; AndroidManifest.xml says why these. */
export const MIN_SDK = 21;
export const TARGET_SDK = 35;

const JAVA_KEYWORDS = new Set(
  ('abstract assert boolean break byte case catch char class const continue default do double else enum extends final ' +
    'finally float for goto if implements import instanceof int interface long native new package private protected ' +
    'public return short static strictfp super switch synchronized this throw throws transient try void volatile while ' +
    'true false null').split(' '),
);

/** A DNS name with at least two labels: App Links and a TWA need a name with an HTTPS certificate. */
const hostName = z
  .string()
  .trim()
  .toLowerCase()
  .refine((h) => h.length <= 253 && /^(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/.test(h) && !/^[\d.]+$/.test(h), {
    message: 'must be the host name the phone opens over HTTPS, like dispatch.example.ts.net (no scheme, port, path or IP address)',
  });

const VERSION_CODE = 'must be a whole number from 1 to 2100000000, raised for every update';

const schema = z.object({
  TWA_HOST: hostName,
  TWA_PACKAGE_ID: z
    .string()
    .trim()
    .refine((p) => p.length <= 255 && /^[a-zA-Z][\w]*(\.[a-zA-Z][\w]*)+$/.test(p) && !p.split('.').some((s) => JAVA_KEYWORDS.has(s)), {
      message: 'must be an Android package id like dev.example.dispatch: two or more parts joined by dots, each a letter then letters, digits or _, none a Java keyword',
    }),
  TWA_OUT: z.string().min(1).default('dist'),
  TWA_KEYSTORE: z.string().min(1).default('android.keystore'),
  TWA_KEYSTORE_PASSWORD: z.string().min(6, 'must be at least 6 characters (keytool refuses shorter)').default('android'),
  TWA_KEY_ALIAS: z.string().regex(/^[\w.-]{1,64}$/, 'must be letters, digits, ., _ or - (at most 64)').default('petal-dispatch'),
  TWA_VERSION_CODE: z.coerce.number({ message: VERSION_CODE }).int(VERSION_CODE).min(1, VERSION_CODE).max(2_100_000_000, VERSION_CODE).default(1),
  TWA_VERSION_NAME: z.string().regex(/^[\w.+-]{1,64}$/, 'must be like 1.2.0 (letters, digits, . _ + -)').optional(),
});

export interface ApkOptions {
  host: string;
  packageId: string;
  out: string;
  keystore: string;
  /** Given to keytool and apksigner through their environment, never on a command line. */
  keystorePassword: string;
  passwordIsDefault: boolean;
  keyAlias: string;
  versionCode: number;
  versionName: string;
}

/** The build's settings from the environment; throws ApkError naming every bad variable. */
export function apkOptions(env: NodeJS.ProcessEnv): ApkOptions {
  const present = Object.fromEntries(Object.keys(schema.shape).flatMap((k) => (env[k] ? [[k, env[k]]] : [])));
  // Like `npm run twa`: the host defaults to PUBLIC_URL's, when that is an https address.
  if (!present.TWA_HOST && URL.canParse(env.PUBLIC_URL ?? '') && new URL(env.PUBLIC_URL!).protocol === 'https:') present.TWA_HOST = new URL(env.PUBLIC_URL!).hostname;
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => {
      const name = String(i.path[0]);
      if (present[name] === undefined) return `  ${name} is required${name === 'TWA_HOST' ? ' (or PUBLIC_URL=https://…, whose host it defaults to)' : ''}`;
      const shown = name === 'TWA_KEYSTORE_PASSWORD' ? '' : ` (${JSON.stringify(present[name])})`;
      return `  ${name}${shown} ${i.message}`;
    });
    throw new ApkError(`invalid settings:\n${lines.join('\n')}`);
  }
  const o = parsed.data;
  return {
    host: o.TWA_HOST,
    packageId: o.TWA_PACKAGE_ID,
    out: path.resolve(o.TWA_OUT),
    keystore: path.resolve(o.TWA_KEYSTORE),
    keystorePassword: o.TWA_KEYSTORE_PASSWORD,
    passwordIsDefault: !present.TWA_KEYSTORE_PASSWORD,
    keyAlias: o.TWA_KEY_ALIAS,
    versionCode: o.TWA_VERSION_CODE,
    versionName: o.TWA_VERSION_NAME ?? (JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version,
  };
}

const colour = z.string().regex(/^#([0-9a-f]{3}|[0-9a-f]{6})$/i, 'must be a #rgb or #rrggbb colour for Android');
const webManifestSchema = z.object({
  name: z.string().min(1),
  short_name: z.string().min(1).optional(),
  start_url: z.string().default('/'),
  theme_color: colour,
  background_color: colour,
  icons: z.array(z.object({ src: z.string(), sizes: z.string().default(''), type: z.string().optional(), purpose: z.string().default('any') })),
});

export interface WebApp {
  appName: string;
  launcherName: string;
  launchUrl: string;
  themeColor: string;
  backgroundColor: string;
  /** Paths of PNG files: the launcher icon ("any"), and the maskable one when the manifest has it. */
  icon: string;
  maskableIcon?: string;
}

export const WEB_MANIFEST = path.join(repoRoot, 'client', 'public', 'manifest.webmanifest');

/** The app's name, start URL (on https://host), colours and icons, from the PWA's web manifest. */
export function webApp(host: string, manifestPath = WEB_MANIFEST): WebApp {
  const where = path.relative(repoRoot, manifestPath);
  const parsed = webManifestSchema.safeParse(JSON.parse(fs.readFileSync(manifestPath, 'utf8')));
  if (!parsed.success) {
    throw new ApkError(`${where}: ${parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`);
  }
  const m = parsed.data;
  const launch = new URL(m.start_url, `https://${host}/`);
  if (launch.protocol !== 'https:' || launch.host !== host) throw new ApkError(`${where}: start_url ${m.start_url} leaves https://${host}/`);

  // The smallest PNG of at least 192 px (the launcher's xxxhdpi size), else the largest.
  const pngs = m.icons
    .filter((i) => i.type === 'image/png' || i.src.endsWith('.png'))
    .map((i) => ({ ...i, size: Math.max(0, ...i.sizes.split(/\s+/).map((s) => Number.parseInt(s, 10) || 0)), file: path.join(path.dirname(manifestPath), i.src.replace(/^\//, '')) }));
  const pick = (purpose: string) => {
    const some = pngs.filter((i) => i.purpose.split(/\s+/).includes(purpose)).sort((a, b) => a.size - b.size);
    return some.find((i) => i.size >= 192) ?? some.at(-1);
  };
  const icon = pick('any');
  if (!icon) throw new ApkError(`${where}: no PNG icon with purpose "any" for the launcher`);
  const maskable = pick('maskable');
  for (const i of [icon, maskable]) if (i && !fs.existsSync(i.file)) throw new ApkError(`${where}: icon ${i.src} is not at ${path.relative(repoRoot, i.file)}`);
  return {
    appName: m.name,
    launcherName: m.short_name ?? m.name,
    launchUrl: launch.href,
    themeColor: m.theme_color,
    backgroundColor: m.background_color,
    icon: icon.file,
    maskableIcon: maskable?.file,
  };
}
