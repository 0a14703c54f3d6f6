// Reads sql/ as the migration runner applies it (migrations in order, then the function files in
// name order) and finds the functions and triggers each file defines or drops.
import fs from 'node:fs';
import path from 'node:path';
import { listMigrations } from '../../core/db/migrate.ts';

export const SQL_ROOT = path.resolve(import.meta.dirname, '../../sql');

export interface SqlFile {
  /** Repository-relative, e.g. sql/functions/20_tasks.sql. */
  path: string;
  kind: 'migration' | 'functions';
  text: string;
  /** The text with every comment blanked out (same length, same line breaks). */
  code: string;
}

/** `-- …` comments become spaces; quoted text is left alone, so an index into code is one into text. */
export function blankComments(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const dollar = /^\$([A-Za-z_]\w*)?\$/.exec(text.slice(i, i + 64));
    if (text[i] === "'") {
      const end = text.indexOf("'", i + 1);
      const stop = end === -1 ? text.length : end + 1;
      out += text.slice(i, stop);
      i = stop;
    } else if (dollar) {
      // A dollar-quoted body: its own comments are blanked too, its quoted strings kept.
      const tag = dollar[0];
      const end = text.indexOf(tag, i + tag.length);
      const stop = end === -1 ? text.length : end + tag.length;
      out += tag + blankComments(text.slice(i + tag.length, stop - tag.length)) + text.slice(stop - tag.length, stop);
      i = stop;
    } else if (text.startsWith('--', i)) {
      const end = text.indexOf('\n', i);
      const stop = end === -1 ? text.length : end;
      out += ' '.repeat(stop - i);
      i = stop;
    } else {
      out += text[i];
      i += 1;
    }
  }
  return out;
}

function read(rel: string, kind: SqlFile['kind']): SqlFile {
  const text = fs.readFileSync(path.join(SQL_ROOT, '..', rel), 'utf8');
  return { path: rel, kind, text, code: blankComments(text) };
}

/** Every SQL file, in the order migrate() applies them. */
export function sqlFiles(root = SQL_ROOT): SqlFile[] {
  const migrations = listMigrations(path.join(root, 'migrations')).map((m) => read(`sql/migrations/${m.name}`, 'migration'));
  const fnDir = path.join(root, 'functions');
  const functions = fs.readdirSync(fnDir).filter((f) => f.endsWith('.sql')).sort().map((f) => read(`sql/functions/${f}`, 'functions'));
  return [...migrations, ...functions];
}

export interface Definition {
  what: 'function' | 'trigger';
  /** A function's name (dispatch.x) or a trigger's table and name (dispatch.events.events_push). */
  key: string;
  act: 'define' | 'drop';
  file: SqlFile;
  index: number;
}

const PATTERNS: [RegExp, Definition['what'], Definition['act'], (m: RegExpMatchArray) => string][] = [
  [/\bcreate\s+(?:or\s+replace\s+)?function\s+(dispatch\.\w+)\s*\(/gi, 'function', 'define', (m) => m[1]!],
  [/\bdrop\s+function\s+(?:if\s+exists\s+)?(dispatch\.\w+)/gi, 'function', 'drop', (m) => m[1]!],
  [/\bcreate\s+(?:or\s+replace\s+)?(?:constraint\s+)?trigger\s+(\w+)\s[\s\S]*?\bon\s+(dispatch\.\w+)/gi, 'trigger', 'define', (m) => `${m[2]}.${m[1]}`],
  [/\bdrop\s+trigger\s+(?:if\s+exists\s+)?(\w+)\s+on\s+(dispatch\.\w+)/gi, 'trigger', 'drop', (m) => `${m[2]}.${m[1]}`],
];

/** Every definition and drop of a dispatch function or trigger, in the order they run. */
export function definitions(files = sqlFiles()): Definition[] {
  return files.flatMap((file) =>
    PATTERNS.flatMap(([re, what, act, key]) =>
      [...file.code.matchAll(re)].map((m) => ({ what, act, key: key(m).toLowerCase(), file, index: m.index })),
    ).sort((a, b) => a.index - b.index),
  );
}

/** Where each function and trigger that still exists was last defined. */
export function latestDefinitions(files = sqlFiles()): Map<string, Definition> {
  const latest = new Map<string, Definition>();
  for (const d of definitions(files)) {
    const key = `${d.what} ${d.key}`;
    if (d.act === 'drop') latest.delete(key);
    else latest.set(key, d);
  }
  return latest;
}

/** The dollar-quoted body of the function defined at `index` of the file (what pg_proc.prosrc holds). */
export function functionBody(file: SqlFile, index: number): string {
  const as = /\bas\s+(\$\w*\$)/gi;
  as.lastIndex = index;
  const m = as.exec(file.code);
  if (!m) throw new Error(`${file.path}: no dollar-quoted body after offset ${index}`);
  const start = m.index + m[0].length;
  const end = file.text.indexOf(m[1]!, start);
  if (end === -1) throw new Error(`${file.path}: the body opened with ${m[1]} at offset ${start} never closes`);
  return file.text.slice(start, end);
}
