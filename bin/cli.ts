// `npm run dispatch -- <command>`: a small operator CLI over the same SQL functions psql users call.
import path from 'node:path';
import fs from 'node:fs';
import { loadConfig } from '../core/config.ts';
import { createSql, type Sql } from '../core/db/client.ts';
import type { Gate } from '../core/contracts/gate.ts';
import { journalHead } from '../functions/queries/events.ts';
import type { BudgetState, UsageReport, UsageRow, UsageTotals } from '../core/contracts/usage.ts';

const USAGE = `usage: npm run dispatch -- <command>
  project add NAME                      create a project
  project list                          list projects
  task add [--project NAME] BRIEF [--approach TEXT]
                                        submit a task (default project: the only one, or "default")
  task list [--project NAME]            recent tasks and their status
  task cancel TASK_ID                   ask a task to stop
  task diff TASK_ID                     the task's change: branch, files with +/-, the patch
  task merge TASK_ID                    merge the task's branch into its project's base (queues the job)
  task discard TASK_ID                  remove the task's worktree and branch (the patch stays journalled)
  task continue TASK_ID BRIEF           a follow-up task on a branch from the task's branch
  task resolve TASK_ID                  a task on the conflicting branch whose brief carries the conflict
  gate list [--all]                     open gates (with --all: decided ones too), newest first
  gate approve GATE_ID [REASON]         approve a gate: its worker resumes and the call runs
  gate deny GATE_ID [REASON]            deny a gate: the worker resumes and hears the reason
  tail [--after SEQ]                    follow the journal
  usage [--project NAME|all] [--since T] [--until T] [--group day|task|model|project|role]
                                        what runs cost (the CLI's own estimate), as GET /api/usage
  usage task TASK_ID                    one task's cost by session role and model
  budget [--project NAME] [--per-task USD|none] [--per-day USD|none]
                                        show or set a project's budget (raising it releases held tasks)
Uses DATABASE_URL, or the embedded Postgres of a running npm start in DISPATCH_DATA_DIR.`;

/** DATABASE_URL, or the running embedded cluster found through its postmaster.pid. */
export function resolveUrl(env: NodeJS.ProcessEnv = process.env): string {
  const config = loadConfig(env);
  if (config.DATABASE_URL) return config.DATABASE_URL;
  const pidFile = path.join(config.dataDir, 'pg', 'postmaster.pid');
  if (!fs.existsSync(pidFile)) {
    throw new Error(`no DATABASE_URL and no running embedded Postgres in ${config.dataDir}: start it with npm start`);
  }
  const port = fs.readFileSync(pidFile, 'utf8').split('\n')[3]?.trim();
  const password = fs.readFileSync(path.join(config.dataDir, 'pg.password'), 'utf8').trim();
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/dispatch`;
}

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i === -1) return undefined;
  const [, value] = args.splice(i, 2);
  if (value === undefined) throw new Error(`${name} needs a value`);
  return value;
}

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
  if (all.length === 0) return (await sql<{ id: string }[]>`select dispatch.create_project('default') as id`)[0]!.id;
  throw new Error('several projects exist: name one with --project');
}

/** A usage table: key, cost to the cent (and to the millionth), tokens, sessions; then the total. */
export function printUsage(print: (s: string) => void, group: string, rows: UsageRow[], total: UsageTotals | null): void {
  const line = (key: string, u: UsageTotals) =>
    `${key.padEnd(38)} ${('$' + u.cost_usd.toFixed(6)).padStart(14)} ${String(u.input_tokens).padStart(12)} ${String(u.output_tokens).padStart(12)} ` +
    `${String(u.cache_read_tokens).padStart(12)} ${String(u.cache_creation_tokens).padStart(12)} ${String(u.sessions).padStart(8)}`;
  print(`${group.padEnd(38)} ${'cost_usd'.padStart(14)} ${'input'.padStart(12)} ${'output'.padStart(12)} ${'cache_read'.padStart(12)} ${'cache_write'.padStart(12)} ${'sessions'.padStart(8)}`);
  for (const r of rows) print(line(r.key || '(no task)', r));
  if (total) print(line('total', total));
}

async function run(sql: Sql, argv: string[]): Promise<void> {
  const args = [...argv];
  const [noun, verb] = args.splice(0, 2);
  const print = (s: string) => process.stdout.write(`${s}\n`);
  if (noun === 'project' && verb === 'add' && args[0]) {
    print((await sql<{ id: string }[]>`select dispatch.create_project(${args.join(' ')}) as id`)[0]!.id);
  } else if (noun === 'project' && verb === 'list') {
    for (const p of await sql<{ id: string; name: string }[]>`select id, name from dispatch.projects order by created_at`) print(`${p.id}  ${p.name}`);
  } else if (noun === 'task' && verb === 'add') {
    const project = option(args, '--project');
    const approach = option(args, '--approach');
    if (!args.length) throw new Error('task add needs a brief');
    const id = await projectId(sql, project);
    print((await sql<{ id: string }[]>`select dispatch.submit_task(${id}, ${args.join(' ')}, ${approach ?? null}) as id`)[0]!.id);
  } else if (noun === 'task' && verb === 'list') {
    const project = option(args, '--project');
    const id = await projectId(sql, project);
    const rows = await sql<{ id: string; status: string; attempt: number; brief: string }[]>`
      select id, status, attempt, brief from dispatch.tasks where project_id = ${id} order by created_at desc limit 30`;
    for (const t of rows) print(`${t.id}  ${t.status.padEnd(17)} #${t.attempt}  ${t.brief.split('\n')[0]!.slice(0, 80)}`);
  } else if (noun === 'task' && verb === 'cancel' && args[0]) {
    print((await sql<{ s: string }[]>`select dispatch.cancel_task(${args[0]}) as s`)[0]!.s);
  } else if (noun === 'gate' && verb === 'list') {
    const all = args.includes('--all');
    const [r] = await sql<{ g: Gate[] }[]>`select dispatch.list_gates(${all ? 'all' : 'open'}, null, 50) as g`;
    for (const g of r!.g) {
      print(`${g.id}  ${g.status.padEnd(8)} ${g.category.padEnd(18)} ${g.project_name ?? '-'}  ${g.tool}: ${(g.subject ?? '').split('\n')[0]!.slice(0, 100)}`);
    }
  } else if (noun === 'gate' && (verb === 'approve' || verb === 'deny') && args[0]) {
    const [id, ...reason] = args;
    const who = process.env.USER ?? 'operator';
    const [r] = await sql<{ g: Gate }[]>`select dispatch.decide_gate(${id!}, ${verb}, ${reason.join(' ') || null}, ${who}, 'cli') as g`;
    print(`${r!.g.id}  ${r!.g.status}`);
  } else if (noun === 'usage') {
    if (verb === 'task' && args[0]) {
      const [r] = await sql<{ r: { total: UsageTotals; by_role: UsageRow[]; by_model: UsageRow[] } }[]>`select dispatch.task_usage(${args[0]}) as r`;
      printUsage(print, 'role', r!.r.by_role, r!.r.total);
      printUsage(print, 'model', r!.r.by_model, null);
      return;
    }
    if (verb) args.unshift(verb);
    const project = option(args, '--project');
    const since = option(args, '--since') ?? null;
    const until = option(args, '--until') ?? null;
    const group = option(args, '--group') ?? 'day';
    const id = project === 'all' ? null : await projectId(sql, project);
    const [r] = await sql<{ r: UsageReport }[]>`select dispatch.usage(${id}, ${since}, ${until}, ${group}) as r`;
    printUsage(print, group, r!.r.rows, r!.r.total);
  } else if (noun === 'task' && (verb === 'merge' || verb === 'discard') && args[0]) {
    const [r] = await sql<{ r: { outcome: string; message?: string; files?: string[]; job?: { id: string } } }[]>`
      select ${sql.unsafe(verb === 'merge' ? 'dispatch.merge_task' : 'dispatch.discard_task')}(${args[0]}) as r`;
    if (r!.r.outcome === 'queued') print(`${verb} queued (job ${r!.r.job!.id})`);
    else {
      print(`${verb} refused (${r!.r.outcome}): ${r!.r.message ?? ''}`);
      process.exitCode = 1;
    }
  } else if (noun === 'task' && verb === 'continue' && args[0] && args[1]) {
    const [id, ...brief] = args;
    print((await sql<{ id: string }[]>`select dispatch.continue_task(${id!}, ${brief.join(' ')}) as id`)[0]!.id);
  } else if (noun === 'task' && verb === 'resolve' && args[0]) {
    print((await sql<{ id: string }[]>`select dispatch.resolve_task(${args[0]}) as id`)[0]!.id);
  } else if (noun === 'task' && verb === 'diff' && args[0]) {
    const [w] = await sql<{ state: string; branch: string; base: string; conflicts: string[]; change: { files: { path: string; insertions: number; deletions: number }[]; patch: string } | null }[]>`
      select w.state, w.branch, w.base, w.conflicts,
             (select e.payload from dispatch.events e where e.task_id = w.task_id and e.event_type = 'workspace.changed'
               and e.payload ->> 'workspace_id' = w.id::text order by e.seq desc limit 1) as change
        from dispatch.workspaces w where w.task_id = ${args[0]} order by w.attempt desc limit 1`;
    if (!w) throw new Error(`task ${args[0]} has no workspace`);
    print(`${w.branch} → ${w.base}  (${w.state}${w.conflicts.length ? `; conflicts in ${w.conflicts.join(', ')}` : ''})`);
    for (const f of w.change?.files ?? []) print(`  +${f.insertions} -${f.deletions}  ${f.path}`);
    if (w.change) process.stdout.write(w.change.patch);
  } else if (noun === 'budget') {
    if (verb) args.unshift(verb);
    const project = option(args, '--project');
    const perTask = option(args, '--per-task');
    const perDay = option(args, '--per-day');
    const id = await projectId(sql, project);
    if (perTask !== undefined || perDay !== undefined) {
      const [cur] = await sql<{ b: BudgetState }[]>`select dispatch.budget_state(${id}) as b`;
      const value = (v: string | undefined, was: number | null) => (v === undefined ? was : v === 'none' ? null : Number(v));
      await sql`select dispatch.set_budget(${id}, ${value(perTask, cur!.b.per_task_usd)}, ${value(perDay, cur!.b.per_day_usd)})`;
    }
    const [b] = await sql<{ b: BudgetState }[]>`select dispatch.budget_state(${id}) as b`;
    const usd = (n: number | null) => (n === null ? 'none' : `$${n.toFixed(2)}`);
    print(`per task ${usd(b!.b.per_task_usd)} · per day ${usd(b!.b.per_day_usd)} · spent today (${b!.b.day}, UTC) ${usd(b!.b.spent_today_usd)}` +
      ` · left ${usd(b!.b.remaining_today_usd)} · held tasks ${b!.b.held_tasks}`);
  } else if (noun === 'tail') {
    let last = Number(option([verb ?? '', ...args].filter(Boolean), '--after') ?? NaN);
    if (Number.isNaN(last)) last = await journalHead(sql);
    const page = async () => {
      const rows = await sql<{ seq: number; event_type: string; task_id: string | null; payload: unknown }[]>`
        select seq, event_type, task_id, payload from dispatch.events where seq > ${last} order by seq limit 500`;
      for (const r of rows) {
        print(`${r.seq}  ${r.event_type.padEnd(22)} ${r.task_id ?? '-'}  ${JSON.stringify(r.payload).slice(0, 160)}`);
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
    await new Promise(() => {});
  } else {
    print(USAGE);
    process.exitCode = noun ? 2 : 0;
  }
}

if (process.argv[1] && path.resolve(process.argv[1]).endsWith(path.join('bin', 'cli.ts'))) {
  const sql = createSql(resolveUrl(), { max: 2, application: 'petal-dispatch cli' });
  try {
    await run(sql, process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`dispatch: ${(err as Error).message}\n`);
    process.exitCode = 2;
  } finally {
    await sql.end({ timeout: 2 });
  }
}
