// Patches postgres.js 3.4.9 after install (porsager/postgres#1208): a query issued on a connection
// whose socket has just closed — postgres.js's own ROLLBACK at the end of a sql.begin that lost its
// connection — schedules a write with no socket. The process then dies with "Cannot read properties
// of null (reading 'write')" in nextWrite, and the connection keeps a stale write timer, so its next
// startup message is never sent and it fails with CONNECT_TIMEOUT forever. A Postgres restart under
// load did both. And a connection closed while a query was active (57P01 on shutdown) kept that
// error and failed the first query after its reconnect with it: the "first request on each pooled
// connection after a restart answers 503". The patch: a query on a closed connection is rejected
// with CONNECTION_CLOSED, a write without a socket is dropped, and a close clears the pending
// write, the active query and its error. Idempotent; checked by
// test/core/db/postgres-patch.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MARK = '/* petal-dispatch: porsager/postgres#1208 */';
const edits = [
  [
    "    if (terminated)\n      return queryError(q, Errors.connection('CONNECTION_DESTROYED', options))\n",
    "    if (terminated)\n      return queryError(q, Errors.connection('CONNECTION_DESTROYED', options))\n\n    " + MARK + "\n    if (!socket)\n      return (queryError(q, Errors.connection('CONNECTION_CLOSED', options)), true)\n",
  ],
  [
    '  function nextWrite(fn) {\n    const x = socket.write(chunk, fn)\n',
    '  function nextWrite(fn) {\n    ' + MARK + '\n    if (!socket)\n      return (chunk = nextWriteTimer = null, false)\n    const x = socket.write(chunk, fn)\n',
  ],
  [
    '    clearImmediate(nextWriteTimer)\n    socket.removeListener(\'data\', data)\n    socket.removeListener(\'connect\', connected)\n    idleTimer.cancel()\n',
    '    clearImmediate(nextWriteTimer)\n    ' + MARK + '\n    chunk = nextWriteTimer = null\n    socket.removeListener(\'data\', data)\n    socket.removeListener(\'connect\', connected)\n    idleTimer.cancel()\n',
  ],
  [
    "    !hadError && (query || sent.length) && error(Errors.connection('CONNECTION_CLOSED', options, socket))\n",
    "    !hadError && (query || sent.length) && error(Errors.connection('CONNECTION_CLOSED', options, socket))\n    " + MARK + "\n    query = errorResponse = null\n",
  ],
];

let failed = false;
for (const rel of ['src/connection.js', 'cjs/src/connection.js', 'cf/src/connection.js']) {
  const file = path.join(root, 'node_modules/postgres', rel);
  if (!fs.existsSync(file)) continue;
  let text = fs.readFileSync(file, 'utf8');
  if (text.includes(MARK)) continue;
  for (const [from, to] of edits) {
    if (!text.includes(from)) {
      process.stderr.write(`patch-postgres: ${rel} does not look like postgres.js 3.4.9; not patched (see scripts/patch-postgres.mjs)\n`);
      failed = true;
      break;
    }
    text = text.replace(from, to);
  }
  if (!failed) fs.writeFileSync(file, text);
}
process.exitCode = 0; // never break an install; the test says whether the patch is in
