// Per-file setup (vitest setupFiles): runs before each test file, in its worker.
// - Marks every process the file starts: PD_TEST_RUN=<run id> is set in this worker's environment
//   after it started, so the worker itself does not carry it in /proc/<pid>/environ but every child
//   (and grandchild) does; the global teardown (test/setup/leaks.ts) looks for survivors by it.
// - Points the temp folder at the run's own (os.tmpdir() follows TMPDIR), so whatever a test leaves
//   there is seen and reported.
// - Runs the deferred teardown (test/helpers/teardown.ts) at module level, where vitest keeps it.
import { afterAll, inject } from 'vitest';
import { runDeferred } from '../helpers/teardown.ts';

process.env.PD_TEST_RUN = inject('pdRun');
process.env.TMPDIR = inject('pdRunTmp');

afterAll(runDeferred);
