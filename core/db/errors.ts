// What a Postgres error means for the caller, by SQLSTATE class: the connection was lost (retry
// later), the data itself was refused (retry will not help), or something else. One list, used by
// the journal writer's retry and by the HTTP error renderer.

/** Connection exceptions and server shutdowns: Postgres is restarting or unreachable. */
const CONNECTION_LOSS_STATES = new Set(['57P01', '57P02', '57P03']); // admin shutdown, crash shutdown, cannot connect now
/** The same, as postgres.js and Node report it before any SQLSTATE exists. */
const CONNECTION_LOSS_CLIENT = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT',
]);
/** Serialization failure and deadlock: the same statement succeeds when run again. */
const RETRYABLE_STATES = new Set(['40001', '40P01']);

function codeOf(err: unknown): unknown {
  return (err as { code?: unknown } | null)?.code;
}

/** Postgres restarting or unreachable: a transient condition, not a bug. */
export function isConnectionLoss(err: unknown): boolean {
  const code = codeOf(err);
  if (typeof code !== 'string') return false;
  return code.startsWith('08') || CONNECTION_LOSS_STATES.has(code) || CONNECTION_LOSS_CLIENT.has(code);
}

/** Worth retrying as is: a lost connection, a serialization failure, or an error without a code (network). */
export function isTransient(err: unknown): boolean {
  const code = codeOf(err);
  if (typeof code !== 'string') return true;
  return isConnectionLoss(err) || RETRYABLE_STATES.has(code);
}

/** The data was refused (class 22, or nesting too deep): the same row will never be accepted. */
export function isDataError(err: unknown): boolean {
  const code = codeOf(err);
  return typeof code === 'string' && (code.startsWith('22') || code === '54001');
}
