// `npm start` (serve + work), `npm run serve` (HTTP only), `npm run work` (job runner only): validate
// config, then run until SIGINT, SIGTERM or SIGHUP. A stop — also one during start-up — stops what
// has started in reverse order: streams and server first, the database last.
import { listenForStop, requestedStop } from '../core/stop-signals.ts';
import type { Dispatch, Mode } from './start.ts';

// Before the rest is loaded: a stop asked for from here on is heard, never the default "die now".
const stops = listenForStop();

const { loadConfigOrExit } = await import('../core/config.ts');
const { startDispatch } = await import('./start.ts');
const { createLogger } = await import('../core/log.ts');
const { startupRefusal } = await import('../functions/middleware/auth.ts');

function fail(message: string, code = 2): never {
  process.stderr.write(`petal-dispatch: ${message}\n`);
  process.exit(code);
}

const mode = (process.argv[2] ?? 'all') as Mode;
if (!['all', 'serve', 'work'].includes(mode)) fail(`unknown mode ${mode}; use serve, work or nothing for both`);

const config = loadConfigOrExit('petal-dispatch');
const refusal = mode === 'work' ? null : startupRefusal(config);
if (refusal) fail(refusal);

const log = createLogger(config.LOG_LEVEL, mode === 'all' ? 'dispatch' : mode);
stops.onStop((why) => log.info(`shutting down (${why})`));
let dispatch: Dispatch;
try {
  dispatch = await startDispatch(config, log, mode, undefined, stops.signal);
} catch (err) {
  if (requestedStop(err)) {
    log.info(`stopped during start-up (${requestedStop(err)})`);
    process.exit(0);
  }
  log.error((err as Error).message);
  process.exit(1);
}
stops.onStop((why) =>
  dispatch.stop(why).then(
    () => process.exit(0),
    (err: Error) => {
      log.error(`stop: ${err.message}`);
      process.exit(1);
    },
  ),
);
