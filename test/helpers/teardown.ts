// Teardown that runs. Vitest 4 silently drops an afterAll() registered inside beforeAll() or a test
// body, so helpers never call afterAll themselves: they register with defer(), and the per-file setup
// (test/setup/file.ts) runs everything deferred once, at module level, when the file ends — last
// registered first, every step even when an earlier one throws, failing the file on any error.
//
//   const child = spawn(...);
//   defer(() => child.kill(), 'my child');      // from anywhere: module level, beforeAll, a test body
//
// A test that wants something gone earlier calls its own stop/close; deferred steps must tolerate
// running after that (make them idempotent).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

type Step = { fn: () => unknown; what: string };

const steps: Step[] = [];
let running = false;

export function defer(fn: () => unknown, what = 'deferred teardown'): void {
  if (running) throw new Error(`defer(${what}) called while the file's teardown runs`);
  steps.push({ fn, what });
}

/** Runs (and forgets) every deferred step, newest first. Called by test/setup/file.ts. */
export async function runDeferred(): Promise<void> {
  running = true;
  const errors: string[] = [];
  try {
    while (steps.length) {
      const step = steps.pop()!;
      try {
        await step.fn();
      } catch (err) {
        errors.push(`${step.what}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  } finally {
    running = false;
  }
  if (errors.length) throw new Error(`teardown failed:\n  ${errors.join('\n  ')}`);
}

/** A fresh temp folder (under the run's own, see test/setup/file.ts), removed when the file ends. */
export function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  defer(() => fs.rmSync(dir, { recursive: true, force: true }), `remove ${dir}`);
  return dir;
}
