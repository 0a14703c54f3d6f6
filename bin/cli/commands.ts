// The operator CLI's commands: one row each (its words, arguments, what it does, how), over the same
// query functions the HTTP routes use (functions/queries/), so --help is generated from this table.
import type { Sql } from '../../core/db/client.ts';
import { journalHead, pageEvents } from '../../functions/queries/events.ts';
import { decideGate, dryRunGate, listGates } from '../../functions/queries/gates.ts';
import { createProject, listProjects } from '../../functions/queries/projects.ts';
import { cancelTask, listTasks, submitTask } from '../../functions/queries/tasks.ts';
import { budgetState, setBudget, taskUsage, usageReport } from '../../functions/queries/usage.ts';
import { continueTask, decideChange, resolveTask, taskWorkspace } from '../../functions/queries/workspaces.ts';
import path from 'node:path';
import { WorkdirError, workdirProblem } from '../../core/workdir.ts';
import { option, printUsage } from './format.ts';
import { openPsql } from './psql.ts';
import { scheduleCommands } from './schedule-commands.ts';
import type { CliContext, Command } from './command.ts';

export type { CliContext, Command } from './command.ts';

/** --cwd as an absolute path, refused (naming config.cwd) unless it is a directory we can write in. */
function checkedCwd(dir: string | undefined): string | undefined {
  if (dir === undefined) return undefined;
  const abs = path.resolve(dir);
  const problem = workdirProblem(abs);
  if (problem) throw new Error(`config.cwd: ${new WorkdirError(abs, problem).message}`);
  return abs;
}

/** The project named (by name or id), else the only one, else `default` (made when there is none). */
async function projectId(sql: Sql, name: string | undefined): Promise<string> {
  if (name) {
    const [p] = await sql<{ id: string }[]>`select id from dispatch.projects where lower(name) = lower(${name}) or id::text = ${name}`;
    if (!p) throw new Error(`no project ${name}`);
    return p.id;
  }
  const all = await sql<{ id: string }[]>`select id from dispatch.projects order by created_at limit 2`;
  if (all.length === 1) return all[0]!.id;
  const [d] = await sql<{ id: string }[]>`select id from dispatch.projects where name = 'default'`;
  if (d) return d.id;
  if (all.length === 0) return createProject(sql, 'default');
  throw new Error('several projects exist: name one with --project');
}

const decide = (action: 'merge' | 'discard'): Command['run'] => async (c, [id, ...flags]) => {
  const r = await decideChange(c.sql(), action, id!, { force: flags.includes('--force') });
  if (r.outcome === 'queued') return c.print(`${action} queued (job ${r.job!.id})`);
  c.print(`${action} refused (${r.outcome}): ${r.message ?? ''}`);
  return 1;
};

const decideGateAs = (decision: 'approve' | 'deny'): Command['run'] => async (c, [id, ...reason]) => {
  const g = await decideGate(c.sql(), { id: id!, decision, reason: reason.join(' ') || null, by: c.env.USER ?? 'operator', via: 'cli' });
  c.print(`${g.id}  ${g.status}`);
};

/** `gate test`: the dry run, from the command line. */
async function gateTest(c: CliContext, args: string[]): Promise<number> {
  const dash = args.indexOf('--');
  const command = dash >= 0 ? args.splice(dash).slice(1).join(' ') : undefined;
  const tool = option(args, '--tool') ?? 'Bash';
  const raw = option(args, '--input');
  const cwd = option(args, '--cwd');
  let input: Record<string, unknown>;
  if (raw !== undefined) {
    try {
      input = JSON.parse(raw) as Record<string, unknown>;
    } catch (e) {
      throw new Error(`--input: not JSON (${(e as Error).message})`);
    }
    if (!input || typeof input !== 'object' || Array.isArray(input)) throw new Error('--input: a JSON object, e.g. \'{"file_path": "package.json"}\'');
  } else if (command) input = { command };
  else throw new Error("give the command after --, or --tool and --input '<json>'");
  const v = await dryRunGate(c.sql(), { project_id: await projectId(c.sql(), args[0]), tool, input, cwd: cwd ? path.resolve(cwd) : undefined });
  c.print([v.decision, v.category, v.rule, v.reason && `${v.reason}${v.fact ? ` (${v.fact})` : ''}`].filter(Boolean).join('  '));
  return 0;
}

/** Follows the journal from a seq (default: its head) until interrupted. */
async function tail(c: CliContext, args: string[]): Promise<never> {
  const sql = c.sql();
  let last = Number(option(args, '--after') ?? NaN);
  if (Number.isNaN(last)) last = await journalHead(sql);
  const page = async () => {
    const rows = await pageEvents(sql, { after: last, limit: 500 });
    for (const r of rows) {
      c.print(`${r.seq}  ${r.event_type.padEnd(22)} ${r.task_id ?? '-'}  ${JSON.stringify(r.payload).slice(0, 160)}`);
      last = r.seq;
    }
    return rows.length;
  };
  let busy = false;
  const kick = async () => {
    if (busy) return;
    busy = true;
    try {
      while ((await page()) === 500);
    } finally {
      busy = false;
    }
  };
  await sql.listen('dispatch_events', () => void kick(), () => void kick());
  setInterval(() => void kick(), 2000);
  return new Promise<never>(() => {});
}

export const COMMANDS: Command[] = [
  {
    words: ['project', 'add'], args: 'NAME [--cwd DIR]', summary: 'create a project (DIR: its working directory, which must exist)', minArgs: 1,
    run: async (c, args) => {
      const cwd = checkedCwd(option(args, '--cwd'));
      c.print(await createProject(c.sql(), args.join(' '), cwd ? { cwd } : {}));
    },
  },
  {
    words: ['project', 'set'], args: 'PROJECT --cwd DIR', summary: "change a project's working directory", minArgs: 1,
    run: async (c, args) => {
      const cwd = checkedCwd(option(args, '--cwd'));
      if (!cwd) throw new Error('project set needs --cwd DIR');
      const sql = c.sql();
      const id = await projectId(sql, args.join(' '));
      await sql`select dispatch.update_project(${id}, null, (select config from dispatch.projects where id = ${id}) || ${JSON.stringify({ cwd })}::text::jsonb)`;
      c.print(`${id}  cwd ${cwd}`);
    },
  },
  {
    words: ['project', 'list'], summary: 'list projects',
    run: async (c) => {
      for (const p of await listProjects(c.sql())) c.print(`${p.id}  ${p.name}`);
    },
  },
  {
    words: ['task', 'add'], args: '[--project NAME] BRIEF [--approach TEXT] [--after TASK_ID[,TASK_ID…]]',
    summary: 'submit a task (default project: the only one, or "default"); with --after it starts when those ended success',
    run: async (c, args) => {
      const project = option(args, '--project');
      const approach = option(args, '--approach');
      const after = option(args, '--after')?.split(',').map((s) => s.trim()).filter(Boolean);
      if (!args.length) throw new Error('task add needs a brief');
      const sql = c.sql();
      c.print(await submitTask(sql, { project_id: await projectId(sql, project), brief: args.join(' '), approach, depends_on: after }));
    },
  },
  {
    words: ['task', 'list'], args: '[--project NAME]', summary: 'recent tasks and their status',
    run: async (c, args) => {
      const sql = c.sql();
      const tasks = await listTasks(sql, { project: await projectId(sql, option(args, '--project')), limit: 30 });
      for (const t of tasks) c.print(`${t.id}  ${t.status.padEnd(17)} #${t.attempt}  ${t.brief.split('\n')[0]!.slice(0, 80)}`);
    },
  },
  {
    words: ['task', 'cancel'], args: 'TASK_ID', summary: 'ask a task to stop', minArgs: 1,
    run: async (c, [id]) => c.print(await cancelTask(c.sql(), id!)),
  },
  {
    words: ['task', 'diff'], args: 'TASK_ID', summary: "the task's change: branch, files with +/-, the patch", minArgs: 1,
    run: async (c, [id]) => {
      const w = await taskWorkspace(c.sql(), id!);
      if (!w) throw new Error(`task ${id} has no workspace`);
      c.print(`${w.branch} → ${w.base}  (${w.state}${w.conflicts.length ? `; conflicts in ${w.conflicts.join(', ')}` : ''})`);
      for (const f of w.change?.files ?? []) c.print(`  +${f.insertions} -${f.deletions}  ${f.path}`);
      if (w.change) c.write(w.change.patch);
    },
  },
  {
    words: ['task', 'merge'], args: 'TASK_ID [--force]', summary: "merge the task's branch into its project's base (queues the job); --force past a failed check", minArgs: 1,
    run: decide('merge'),
  },
  {
    words: ['task', 'discard'], args: 'TASK_ID', summary: "remove the task's worktree and branch (the patch stays journalled)", minArgs: 1,
    run: decide('discard'),
  },
  {
    words: ['task', 'continue'], args: 'TASK_ID BRIEF', summary: "a follow-up task on a branch from the task's branch", minArgs: 2,
    run: async (c, [id, ...brief]) => c.print(await continueTask(c.sql(), id!, brief.join(' '))),
  },
  {
    words: ['task', 'resolve'], args: 'TASK_ID', summary: 'a task on the conflicting branch whose brief carries the conflict', minArgs: 1,
    run: async (c, [id]) => c.print(await resolveTask(c.sql(), id!)),
  },
  {
    words: ['gate', 'list'], args: '[--all]', summary: 'open gates (with --all: decided ones too), newest first',
    run: async (c, args) => {
      for (const g of await listGates(c.sql(), { status: args.includes('--all') ? 'all' : 'open', limit: 50 })) {
        c.print(`${g.id}  ${g.status.padEnd(8)} ${g.category.padEnd(18)} ${g.project_name ?? '-'}  ${g.tool}: ${(g.subject ?? '').split('\n')[0]!.slice(0, 100)}`);
      }
    },
  },
  {
    words: ['gate', 'approve'], args: 'GATE_ID [REASON]', summary: 'approve a gate: its worker resumes and the call runs', minArgs: 1,
    run: decideGateAs('approve'),
  },
  {
    words: ['gate', 'deny'], args: 'GATE_ID [REASON]', summary: 'deny a gate: the worker resumes and hears the reason', minArgs: 1,
    run: decideGateAs('deny'),
  },
  {
    words: ['gate', 'test'], args: "PROJECT [--cwd DIR] -- COMMAND… | PROJECT --tool TOOL --input 'JSON'",
    summary: 'what the gate would answer for a call (POST /api/gates/dry-run): nothing is opened or journalled', minArgs: 1,
    run: gateTest,
  },
  { words: ['tail'], args: '[--after SEQ]', summary: 'follow the journal', run: tail },
  {
    words: ['usage'], args: '[--project NAME|all] [--since T] [--until T] [--group day|task|model|project|role]',
    summary: 'what runs cost (the CLI\'s own estimate), as GET /api/usage',
    run: async (c, args) => {
      const sql = c.sql();
      const project = option(args, '--project');
      const since = option(args, '--since') ?? null;
      const until = option(args, '--until') ?? null;
      const group = option(args, '--group') ?? 'day';
      const r = await usageReport(sql, { project_id: project === 'all' ? null : await projectId(sql, project), since, until, group });
      printUsage(c.print, group, r.rows, r.total);
    },
  },
  {
    words: ['usage', 'task'], args: 'TASK_ID', summary: "one task's cost by session role and model", minArgs: 1,
    run: async (c, [id]) => {
      const r = await taskUsage(c.sql(), id!);
      printUsage(c.print, 'role', r.by_role, r.total);
      printUsage(c.print, 'model', r.by_model, null);
    },
  },
  {
    words: ['budget'], args: '[--project NAME] [--per-task USD|none] [--per-day USD|none]',
    summary: "show or set a project's budget (raising it releases held tasks)",
    run: async (c, args) => {
      const sql = c.sql();
      const project = option(args, '--project');
      const perTask = option(args, '--per-task');
      const perDay = option(args, '--per-day');
      const id = await projectId(sql, project);
      if (perTask !== undefined || perDay !== undefined) {
        const cur = await budgetState(sql, id);
        const value = (v: string | undefined, was: number | null) => (v === undefined ? was : v === 'none' ? null : Number(v));
        await setBudget(sql, id, { per_task_usd: value(perTask, cur.per_task_usd), per_day_usd: value(perDay, cur.per_day_usd) });
      }
      const b = await budgetState(sql, id);
      const usd = (n: number | null) => (n === null ? 'none' : `$${n.toFixed(2)}`);
      c.print(`per task ${usd(b.per_task_usd)} · per day ${usd(b.per_day_usd)} · spent today (${b.day}, UTC) ${usd(b.spent_today_usd)}` +
        ` · left ${usd(b.remaining_today_usd)} · held tasks ${b.held_tasks}`);
    },
  },
  {
    words: ['psql'], args: '[PSQL_ARGS…]', summary: 'open psql on the database in use (arguments go to psql, e.g. -c "select 1")',
    run: (c, args) => openPsql(c.url(), args, c.env, c.warn),
  },
  {
    words: ['psql', '--print-url'], summary: "print that database's URL, password included (for another client)",
    run: async (c) => c.print(c.url()),
  },
  ...scheduleCommands(projectId),
];

/** The command argv names (the longest matching words with enough arguments), and its arguments. */
export function findCommand(argv: string[]): { command: Command; args: string[] } | null {
  const fits = COMMANDS
    .filter((c) => c.words.every((w, i) => argv[i] === w) && argv.length - c.words.length >= (c.minArgs ?? 0))
    .sort((a, b) => b.words.length - a.words.length);
  const command = fits[0];
  return command ? { command, args: argv.slice(command.words.length) } : null;
}
