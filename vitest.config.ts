import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/setup/postgres.ts', 'test/setup/client.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Real processes and a real Postgres: keep the 2-core machine from thrashing.
    fileParallelism: true,
    maxWorkers: 2,
    pool: 'forks',
  },
});
