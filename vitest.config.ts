import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // leaks.ts first: its teardown runs last and fails the run on leftover processes or temp files.
    globalSetup: ['test/setup/leaks.ts', 'test/setup/postgres.ts', 'test/setup/client.ts'],
    setupFiles: ['test/setup/file.ts'],
    // Tests wait on conditions, never on the clock; the timeout only ends a test that hangs. Generous,
    // because a real claude process costs seconds of CPU on a busy 2-core machine.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Real processes and a real Postgres: keep the 2-core machine from thrashing.
    fileParallelism: true,
    maxWorkers: 2,
    pool: 'forks',
  },
});
