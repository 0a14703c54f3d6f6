// A project's working directory (config.cwd) is the person's own folder: it is checked, never made.
// The HTTP API and the CLI refuse one that is not an absolute path to a writable directory; a config
// written from psql (whose database may not see this disk) is checked when a process is to start in
// it, and the task then ends failed with the reason. Only the default, DISPATCH_DATA_DIR/work/<project
// id>, is ours to create.
import fs from 'node:fs';
import path from 'node:path';

export type WorkdirProblem = 'relative' | 'missing' | 'not_a_directory' | 'not_writable';

const SAYS: Record<WorkdirProblem, string> = {
  relative: 'is not an absolute path',
  missing: 'does not exist',
  not_a_directory: 'is not a directory',
  not_writable: 'is not writable by this process',
};

export class WorkdirError extends Error {
  override name = 'WorkdirError';
  constructor(
    readonly dir: string,
    readonly problem: WorkdirProblem,
  ) {
    super(`the working directory ${dir} ${SAYS[problem]}`);
  }
}

/** What is wrong with dir as a working directory, or null when a process can work in it. */
export function workdirProblem(dir: string): WorkdirProblem | null {
  if (!path.isAbsolute(dir)) return 'relative';
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dir);
  } catch {
    return 'missing';
  }
  if (!stat.isDirectory()) return 'not_a_directory';
  try {
    fs.accessSync(dir, fs.constants.W_OK | fs.constants.X_OK);
  } catch {
    return 'not_writable';
  }
  return null;
}

/** Throws WorkdirError when dir cannot be worked in. */
export function checkWorkdir(dir: string): void {
  const problem = workdirProblem(dir);
  if (problem) throw new WorkdirError(dir, problem);
}

/** The default working directory of a project (made by ensureDefaultWorkdir, never by anything else). */
export function defaultWorkdir(dataDir: string, projectId: string): string {
  return path.join(dataDir, 'work', projectId);
}

/**
 * Makes the directory a process is to start in ready: the default one is created when missing; any
 * other is only checked (WorkdirError).
 */
export function readyWorkdir(dir: string, dataDir: string, projectId: string): string {
  if (path.resolve(dir) === path.resolve(defaultWorkdir(dataDir, projectId))) fs.mkdirSync(dir, { recursive: true });
  checkWorkdir(dir);
  return dir;
}

/** Why a process cannot start in dir (null: it can, the project's default folder made if need be). */
export function workdirFault(dir: string, dataDir: string, projectId: string): string | null {
  try {
    readyWorkdir(dir, dataDir, projectId);
    return null;
  } catch (err) {
    if (err instanceof WorkdirError) return err.message;
    throw err;
  }
}
