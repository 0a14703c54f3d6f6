// Every job enqueued anywhere (SQL in sql/, TypeScript on both sides and in the tests) names a job
// the runner registers: a misspelt identifier would queue a job that no runner ever takes.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JOB_NAMES, SESSION_JOBS } from '../../jobs/tasks/index.ts';
import { blankComments, sqlFiles } from '../helpers/sql-files.ts';

const root = path.resolve(import.meta.dirname, '../..');
const registered = new Set<string>(JOB_NAMES);
const self = path.relative(root, import.meta.filename);

interface Enqueue {
  file: string;
  line: number;
  /** The identifier's text as written: a quoted literal, or an expression. */
  arg: string;
}

/**
 * Identifiers that are not literals, each reviewed: what it can be, and why that is pinned. An
 * enqueue by an expression not listed here fails the test.
 */
const COMPUTED: Record<string, { names: readonly string[]; pinnedBy: string }> = {
  'sql/functions/60_workspaces.sql identifier': {
    names: ['merge_workspace', 'discard_workspace'],
    pinnedBy: 'the case in queue_workspace_decision names both (checked below)',
  },
  'jobs/host-bound.ts ${onHost(identifier, err.host)}': {
    names: SESSION_JOBS.map((n) => `${n}@<host>`),
    pinnedBy: 'onHost takes a SessionJobName (a type error otherwise)',
  },
  'jobs/tasks/check_host.ts ${p.identifier}': {
    names: SESSION_JOBS,
    pinnedBy: 'its payload schema is z.enum(SESSION_JOBS)',
  },
};

const lineOf = (text: string, index: number) => text.slice(0, index).split('\n').length;

function sqlEnqueues(): Enqueue[] {
  return sqlFiles().flatMap((f) =>
    [...f.code.matchAll(/\badd_job\s*\(\s*('[^']*'|[^,)]+)/gi)].map((m) => ({ file: f.path, line: lineOf(f.text, m.index), arg: m[1]!.trim() })),
  );
}

function tsFiles(): string[] {
  return ['bin', 'core', 'functions', 'jobs', 'test', 'fixtures', 'scripts']
    .filter((d) => fs.existsSync(path.join(root, d)))
    .flatMap((d) => fs.readdirSync(path.join(root, d), { recursive: true, encoding: 'utf8' }).map((f) => path.join(d, f)))
    .filter((f) => /\.(ts|mts|mjs|js)$/.test(f) && !f.includes('node_modules') && f !== self);
}

/** add_job(…) in SQL inside TypeScript, graphile-worker's addJob(…) and quickAddJob(options, …). */
const TS_ENQUEUE = /\badd_job\s*\(\s*('[^']*'|\$\{[^}]*\}+)|\baddJob\s*\(\s*('[^']*'|"[^"]*"|`[^`]*`|[^,)]+)|\bquickAddJob\s*\(\s*[^,]+,\s*('[^']*'|"[^"]*"|`[^`]*`|[^,)]+)/g;

function tsEnqueues(): Enqueue[] {
  return tsFiles().flatMap((file) => {
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    return [...text.matchAll(TS_ENQUEUE)].map((m) => ({ file, line: lineOf(text, m.index), arg: (m[1] ?? m[2] ?? m[3])!.trim() }));
  });
}

/** A literal's name, or null for an expression. */
const literal = (arg: string) => /^(['"`])([^'"`$]*)\1$/.exec(arg)?.[2] ?? null;

function unregistered(enqueues: Enqueue[]): string[] {
  return enqueues.flatMap((e) => {
    const name = literal(e.arg);
    if (name !== null) return registered.has(name) ? [] : [`${e.file}:${e.line} enqueues '${name}', which no runner registers`];
    return COMPUTED[`${e.file} ${e.arg}`] ? [] : [`${e.file}:${e.line} enqueues ${e.arg}: not a literal and not reviewed in COMPUTED`];
  });
}

describe('job identifiers', () => {
  const sql = sqlEnqueues();
  const ts = tsEnqueues();

  it('every add_job in sql/ (migrations and function files) names a registered job', () => {
    expect(sql.length).toBeGreaterThanOrEqual(10);
    expect(unregistered(sql)).toEqual([]);
  });

  it('every enqueue in TypeScript (add_job, addJob, quickAddJob) names a registered job', () => {
    expect(ts.length).toBeGreaterThanOrEqual(5);
    expect(unregistered(ts)).toEqual([]);
  });

  it('each computed identifier takes only registered names, and each reviewed one is still in the code', () => {
    const seen = new Set([...sql, ...ts].map((e) => `${e.file} ${e.arg}`));
    expect(Object.keys(COMPUTED).filter((k) => !seen.has(k))).toEqual([]);
    const names = Object.values(COMPUTED).flatMap((c) => c.names.map((n) => n.replace(/@<host>$/, '')));
    expect(names.filter((n) => !registered.has(n))).toEqual([]);
    const workspaces = blankComments(fs.readFileSync(path.join(root, 'sql/functions/60_workspaces.sql'), 'utf8'));
    for (const n of COMPUTED['sql/functions/60_workspaces.sql identifier']!.names) expect(workspaces).toContain(`'${n}'`);
  });

  it('a host-bound identifier written out (`<job>@<host>`) names a job that may be bound to a host', () => {
    const bound = new Set<string>(SESSION_JOBS);
    const wrong = [...tsFiles(), ...sqlFiles().map((f) => f.path)].flatMap((file) => {
      const text = fs.readFileSync(path.join(root, file), 'utf8');
      return [...text.matchAll(/[`'"]([a-z][a-z0-9]*_[a-z0-9_]+)@/g)]
        .filter((m) => !bound.has(m[1]!))
        .map((m) => `${file}:${lineOf(text, m.index)} ${m[1]}@…`);
    });
    expect(wrong).toEqual([]);
  });
});
