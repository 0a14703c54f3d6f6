// Configuration: environment variables validated once at start-up, with a clear message for a bad one.
import path from 'node:path';
import { z } from 'zod';

const bool = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', ''])
  .transform((v) => v === '1' || v === 'true' || v === 'yes');

const csv = z.string().transform((v) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

/** A host name as people write it: a name, an IPv4 address or a bracketed IPv6 one, maybe with :port. */
const hostName = z
  .string()
  .trim()
  .regex(/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*\.?)(:\d{1,5})?$/, 'must be a host name like dispatch.example.ts.net');

export const configSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(7777),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  DISPATCH_DATA_DIR: z.string().min(1).default('.dispatch'),
  CLAUDE_BIN: z.string().min(1).optional(),
  GIT_BIN: z.string().min(1).optional(),
  STALL_SECONDS: z.coerce.number().positive().default(120),
  RESULT_GRACE_SECONDS: z.coerce.number().positive().default(30),
  KILL_GRACE_SECONDS: z.coerce.number().positive().default(5),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  CLAUDE_ARGS: z
    .string()
    .transform((v) => v.split(/\s+/).filter(Boolean))
    .optional(),
  OPEN_MODE: bool.optional(),
  ALLOW_OPEN_NETWORK: bool.default(false),
  RULED_OUT_SIMILARITY: z.coerce.number().min(0.1).max(1).default(0.5),
  PUBLIC_URL: z.string().url().optional(),
  ALLOWED_HOSTS: csv
    .pipe(z.array(z.union([hostName, z.string().regex(/^\*\.[A-Za-z0-9.-]+$/)], { message: 'each must be a host name (dispatch.example.ts.net) or *.suffix (*.example.ts.net)' })))
    .default([]),
  TWA_HOST: hostName.optional(),
  DISPATCH_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  TRUSTED_PROXIES: csv.default([]),
  TRELLIS_URL: z.string().url().optional(),
  TRELLIS_ROUTES: z
    .string()
    .transform((v, ctx) => {
      try {
        return JSON.parse(v) as Record<string, string>;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be JSON like {"live":"/threads/live","list":"/threads","detail":"/threads/{id}"}' });
        return z.NEVER;
      }
    })
    .optional(),
  TWA_PACKAGE_ID: z
    .string()
    .regex(/^[a-zA-Z][\w]*(\.[a-zA-Z][\w]*)+$/, 'must be an Android package id like dev.example.dispatch')
    .optional(),
  TWA_SHA256_FINGERPRINTS: csv
    .pipe(z.array(z.string().regex(/^([0-9A-Fa-f]{2}:){31}[0-9A-Fa-f]{2}$/, 'each must be a SHA-256 fingerprint like AB:CD:…(32 pairs)')))
    .default([]),
  RUNNER_HOST_ID: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, 'must be a stable host name: letters, digits, dot, dash, underscore')
    .optional(),
  RUNNER_STALE_SECONDS: z.coerce.number().min(1).max(3600).default(30),
  HOST_LOST_SECONDS: z.coerce.number().min(1).default(300),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
});

export type Config = z.infer<typeof configSchema> & { dataDir: string };

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses the environment; throws ConfigError naming every bad variable. Empty strings count as unset. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(
    Object.keys(configSchema.shape)
      .filter((k) => env[k] !== undefined && env[k] !== '')
      .map((k) => [k, env[k]]),
  );
  const parsed = configSchema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  return { ...parsed.data, dataDir: path.resolve(parsed.data.DISPATCH_DATA_DIR) };
}

/** For entry points: the configuration, or exit 2 with a message naming each bad variable. */
export function loadConfigOrExit(command: string, env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return loadConfig(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${command}: ${err.message}\n`);
    process.exit(2);
  }
}
