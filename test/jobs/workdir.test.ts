// A working directory set from psql (where the database may not see the runner's disk) is checked
// when a process is to start in it: the task ends failed with the reason, no process is started and
// the folder is not created — the runner makes only the default DISPATCH_DATA_DIR/work/<project id>.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startLoop } from '../helpers/loop.ts';
import { tempDir } from '../helpers/teardown.ts';

describe('a project whose working directory is not there', () => {
  it('fails its task with the reason at spawn time, and nothing creates the folder', async () => {
    const loop = await startLoop({ scenarios: [] });
    const missing = path.join(tempDir('pd-cwd-sql-'), 'typo', 'app');
    const project = await loop.project('cwd from psql', { cwd: missing });
    const task = await loop.submit(project, 'Say hello');
    const state = await loop.waitTask(task, 'failed', 60_000);
    expect(state.status_reason).toBe(`the working directory ${missing} does not exist`);
    expect(fs.existsSync(path.dirname(missing))).toBe(false);
    const sessions = await loop.db.sql<{ status: string; pid: number | null }[]>`
      select status, pid from dispatch.sessions where task_id = ${task}`;
    expect(sessions).toEqual([{ status: 'failed', pid: null }]);
    expect(fs.existsSync(path.join(loop.dataDir, 'work', project))).toBe(false); // nor the default instead
  });
});
