// Finding a program the way execvp will when the runner starts it: a name without a slash is
// looked up on PATH (an executable regular file), a name with a slash is a path.
import fs from 'node:fs';
import path from 'node:path';

function executable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * Whether `program` can be started: an absolute path must be an executable file; a relative path
 * with a slash is resolved against the directory it will run in (unknown here: accepted); a bare
 * name must be an executable file in one of PATH's directories.
 */
export function programFound(program: string, PATH: string | undefined): boolean {
  if (path.isAbsolute(program)) return executable(program);
  if (program.includes('/')) return true;
  return (PATH ?? '').split(path.delimiter).some((dir) => dir !== '' && executable(path.join(dir, program)));
}
