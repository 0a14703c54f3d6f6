// `npm start` (serve + work), `npm run serve` (HTTP only), `npm run work` (job runner only): validate
// config, then run until SIGINT/SIGTERM, which stop the server first and the database last.
import { loadConfigOrExit } from '../core/config.ts';
import { startDispatch, type Mode } from './start.ts';
import { createLogger } from '../core/log.ts';
import { startupRefusal } from '../functions/middleware/auth.ts';

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
try {
  const dispatch = await startDispatch(config, log, mode);
  let stopping = false;
  const shutdown = (why: string) => {
    if (stopping) return;
    stopping = true;
    log.info(`shutting down (${why})`);
    void dispatch.stop(why).then(() => process.exit(0));
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
} catch (err) {
  log.error((err as Error).message);
  process.exit(1);
}
