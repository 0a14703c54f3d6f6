// Who owns a data folder: the process holding an exclusive OS lock on DATA/owner.lock (an fcntl
// open-file-description lock, through fs-native-extensions). The kernel drops it the moment its
// holder dies — kill -9, a crash, a zombie no init has reaped yet — and taking it is atomic, so of two
// starts at one moment exactly one wins. owner.pid beside it names the holder, for the message only.
import fs from 'node:fs';
import path from 'node:path';
import fsx from 'fs-native-extensions';
import { isAlive, startTime } from '../process.ts';

export interface DataDirLock {
  /** Lets the folder go (idempotent). */
  release(): void;
}

export class DataDirInUse extends Error {
  override name = 'DataDirInUse';
  constructor(
    readonly dataDir: string,
    readonly owner: number | null,
  ) {
    super(
      `the data folder ${dataDir} is in use by ${owner ? `process ${owner}` : 'another process'}. Stop it, use another DISPATCH_DATA_DIR, ` +
        'or point DATABASE_URL at one shared Postgres to run several processes together.',
    );
  }
}

/** How long a start that lost the lock waits for the winner to write its pid (it does so at once). */
const OWNER_RECORD_WAIT_MS = 2_000;

/** Takes the data folder or throws DataDirInUse naming its owner. Never waits for the lock. */
export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  // Never removed: a lock file unlinked while another start has it open would let two own the folder.
  const lockFile = path.join(dataDir, 'owner.lock');
  const fd = fs.openSync(lockFile, fs.constants.O_RDWR | fs.constants.O_CREAT, 0o600);
  let locked: boolean;
  try {
    locked = fsx.tryLock(fd);
  } catch (err) {
    fs.closeSync(fd);
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new Error(`cannot lock ${lockFile} (${code}): put DISPATCH_DATA_DIR on a local file system that supports locks`, { cause: err });
  }
  if (!locked) {
    fs.closeSync(fd);
    throw new DataDirInUse(dataDir, await recordedOwner(dataDir));
  }
  writeOwner(dataDir);
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      const owner = readOwner(dataDir);
      if (owner?.pid === process.pid) fs.rmSync(path.join(dataDir, 'owner.pid'), { force: true });
      fs.closeSync(fd); // closing the only descriptor of the open file drops its lock
    },
  };
}

interface OwnerRecord {
  pid: number;
  /** startTime() of the pid when it took the lock; null where there is no /proc. */
  start: string | null;
}

function writeOwner(dataDir: string): void {
  const file = path.join(dataDir, 'owner.pid');
  const tmp = `${file}.${process.pid}`;
  fs.writeFileSync(tmp, `${process.pid}\n${startTime(process.pid) ?? ''}\n`);
  fs.renameSync(tmp, file); // whole or not at all, for a reader racing us
}

function readOwner(dataDir: string): OwnerRecord | null {
  try {
    const [pid, start] = fs.readFileSync(path.join(dataDir, 'owner.pid'), 'utf8').split('\n');
    const n = Number(pid);
    return Number.isInteger(n) && n > 0 ? { pid: n, start: start?.trim() || null } : null;
  } catch {
    return null;
  }
}

/**
 * The pid owner.pid names, once it is the lock's holder: running (not a zombie) and the same process
 * (its start time matches, so a reused pid is not taken for it). Right after another start took the
 * lock the file may still name the previous owner; its new record follows within moments.
 */
async function recordedOwner(dataDir: string): Promise<number | null> {
  const deadline = Date.now() + OWNER_RECORD_WAIT_MS;
  for (;;) {
    const owner = readOwner(dataDir);
    if (owner && isRecordedProcess(owner)) return owner.pid;
    if (Date.now() > deadline) return null;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Whether the record names a process that runs now and is the one that wrote it. */
function isRecordedProcess(owner: OwnerRecord): boolean {
  if (!isAlive(owner.pid)) return false;
  const now = startTime(owner.pid);
  return owner.start === null || now === null || now === owner.start;
}
