// `npm run demo`: the whole loop without credentials. Starts the embedded Postgres (in
// .dispatch-demo/ unless DISPATCH_DATA_DIR is set), the server (on port 7778 unless PORT is set, so
// it runs beside `npm start` on 7777) and the runner, and the scripted model replaying
// fixtures/demo.json; creates a sample project, sends it one message, prints the URL.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadScenario, startScriptedModel } from '../fixtures/scripted-model/server.ts';
import { loadConfigOrExit } from '../core/config.ts';
import { startDispatch } from './start.ts';
import { createLogger } from '../core/log.ts';
import { listenForStop, requestedStop } from '../core/stop-signals.ts';

const stops = listenForStop(); // a Ctrl-C while it starts stops what has started (bin/main.ts does the same)
const here = path.dirname(fileURLToPath(import.meta.url));
process.env.DISPATCH_DATA_DIR ??= '.dispatch-demo';
process.env.PORT ??= '7778';

const config = loadConfigOrExit('petal-dispatch demo');
const log = createLogger(config.LOG_LEVEL, 'demo');
const model = await startScriptedModel([loadScenario(path.join(here, '../fixtures/demo.json'))]);
const claudeConfig = path.join(config.dataDir, 'claude-config');
fs.mkdirSync(claudeConfig, { recursive: true });
stops.onStop((why) => log.info(`shutting down (${why})`));
const starting = startDispatch(config, log, 'all', {
  ...process.env,
  ANTHROPIC_BASE_URL: model.url,
  ANTHROPIC_API_KEY: 'sk-ant-scripted-demo-not-a-secret',
  CLAUDE_CONFIG_DIR: claudeConfig,
  CLAUDE_CODE_MAX_RETRIES: '1',
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_AUTOUPDATER: '1',
}, stops.signal);
const dispatch = await starting.catch(async (err: unknown) => {
  await model.close();
  if (requestedStop(err)) process.exit(0);
  log.error((err as Error).message);
  process.exit(1);
});

const name = `demo ${new Date().toISOString().slice(0, 19).replace('T', ' ')}`;
const [p] = await dispatch.sql<{ id: string }[]>`
  select dispatch.create_project(${name}, ${dispatch.sql.json({ allowed_tools: ['Bash'] })}) as id`;
await dispatch.sql`select * from dispatch.post_user_message(${p!.id}, 'Write a short README for this demo in three steps.', ${randomUUID()})`;
process.stdout.write(`\npetal-dispatch demo: open ${dispatch.url}/  (project "${name}"; the scripted model is ${model.url})\n\n`);

stops.onStop((why) => void dispatch.stop(why).then(() => model.close()).then(() => process.exit(0)));
