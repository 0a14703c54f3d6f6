// Finds the processes a test, bench or soak run started, by the PD_TEST_MARKER in their environment
// (Linux /proc), so a run can say which of its children are still alive. No vitest here: the
// bench and the soak run import it too.
import fs from 'node:fs';

/** Pids of live processes whose environment carries the marker (leftover children). */
export function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const env = fs.readFileSync(`/proc/${entry}/environ`, 'latin1');
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'latin1');
      if (env.includes(`PD_TEST_MARKER=${marker}`) && !/\) Z /.test(stat)) found.push(Number(entry));
    } catch {
      /* gone or not ours */
    }
  }
  return found;
}
