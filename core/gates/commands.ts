// What a Bash command does, as facts the gate rules read: every program it runs (after wrappers
// such as env, sudo, nice, xargs, command; `bash -c` strings and literal `eval`s read again), the
// paths it reads, writes and deletes, the variables it reveals, the packages it installs, the git
// refs it moves, the SQL it sends, and what cannot be read at all (`unverified …`).
import path from 'node:path';
import { parseShell, type SimpleCommand, type Word } from './shell.ts';
import { resolvePath } from './paths.ts';
import { envFact, pathFact, type Ctx } from './facts.ts';
import { gitFacts } from './git.ts';


const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'fish', 'ash', 'busybox']);
const FETCHERS = new Set(['curl', 'wget', 'fetch', 'http', 'https', 'aria2c']);
const READERS_OF_ARGS = /^(cat|less|more|head|tail|grep|egrep|rg|ag|awk|sed|cut|sort|uniq|wc|base64|xxd|od|strings|file|stat|diff|cmp|jq|yq|source|\.|nl|tac|bat|hexdump|md5sum|sha\d*sum|openssl|gpg|tar|zip|unzip|gzip|python3?|node|ruby|perl)$/;
/** Wrappers: the program they run starts at the first argument that is not one of their options. */
const WRAPPERS: Record<string, { withValue: RegExp; skipFirst?: RegExp }> = {
  env: { withValue: /^(-u|--unset|-C|--chdir|-S|--split-string)$/ },
  sudo: { withValue: /^(-u|--user|-g|--group|-h|--host|-p|--prompt|-C|--close-from|-r|--role|-t|--type|-D|--chdir|-U|--other-user)$/ },
  doas: { withValue: /^(-u|-C)$/ },
  nice: { withValue: /^(-n|--adjustment)$/ },
  ionice: { withValue: /^(-c|-n|-p|--class|--classdata)$/ },
  nohup: { withValue: /^$/ },
  time: { withValue: /^(-f|--format|-o|--output)$/ },
  command: { withValue: /^$/ },
  builtin: { withValue: /^$/ },
  exec: { withValue: /^-a$/ },
  stdbuf: { withValue: /^(-i|-o|-e)$/ },
  setsid: { withValue: /^$/ },
  timeout: { withValue: /^(-s|--signal|-k|--kill-after)$/, skipFirst: /^\d/ },
  xargs: { withValue: /^(-I|-i|-n|-P|-L|-s|-d|-E|-a|--max-args|--max-procs|--delimiter|--arg-file|--replace)$/ },
  watch: { withValue: /^(-n|--interval|-d)$/ },
  strace: { withValue: /^(-e|-o|-p|-s)$/ },
  chroot: { withValue: /^$/, skipFirst: /./ },
  pkexec: { withValue: /^--user$/ },
  runuser: { withValue: /^(-u|--user|-g|--group)$/ },
};

/** Reads a command line into facts (appended to ctx.facts). */
export async function readCommand(src: string, ctx: Ctx): Promise<void> {
  if (ctx.depth > 4) { ctx.facts.push('unverified nesting deeper than four shells'); return; }
  const parsed = await parseShell(src);
  if (!parsed.ok) { ctx.facts.push(`unverified ${parsed.error}`); return; }
  for (const c of parsed.commands) await readSimple(c, ctx);
}

async function readSimple(c: SimpleCommand, ctx: Ctx): Promise<void> {
  for (const r of c.redirects) {
    const mode = r.op.includes('>') ? 'write' : 'read';
    if (r.op.startsWith('>&') || r.op.startsWith('<&')) { if (!/^\d+$|^-$/.test(r.target.text)) pathFact(mode, r.target, ctx); continue; }
    pathFact(mode, r.target, ctx);
  }
  for (const a of c.assigns) for (const v of a.value.vars) envFact(v, ctx);
  if (!c.words.length) return;
  await readProgram(c.words, c, ctx);
}

const looksLikePath = (t: string) => !/^[a-z][\w+.-]*:\/\//i.test(t) && (/^[~./]/.test(t) || t.includes('/') || /(^|\/)\.[\w-]|\.(pem|key|json|env|ya?ml|toml|ini|conf|txt|p12|pfx)$|^id_|credentials|\.netrc|\.pgpass/.test(t));

async function readProgram(words: Word[], c: SimpleCommand, ctx: Ctx): Promise<void> {
  const head = words[0]!;
  if (!head.literal) { ctx.facts.push(`unverified the program is decided at run time: ${head.text.slice(0, 60)}`); return; }
  const prog = path.basename(head.text);
  const args = words.slice(1);
  const argv = args.map((a) => a.text);
  ctx.facts.push(['run', prog, ...argv].join(' ').slice(0, 2000));
  for (const a of args) for (const v of a.vars) if (prog === 'echo' || prog === 'printf' || prog === 'print') envFact(v, ctx);

  const wrapper = WRAPPERS[prog];
  if (wrapper) {
    let i = 0;
    if (prog === 'env') while (i < args.length && (/^-/.test(args[i]!.text) || /^\w+=/.test(args[i]!.text))) i += wrapper.withValue.test(args[i]!.text) ? 2 : 1;
    else {
      while (i < args.length && /^-/.test(args[i]!.text)) i += wrapper.withValue.test(args[i]!.text) && !args[i]!.text.includes('=') ? 2 : 1;
      if (wrapper.skipFirst && args[i] && wrapper.skipFirst.test(args[i]!.text)) i++;
    }
    if (i < args.length) return readProgram(args.slice(i), { ...c, pipedFrom: prog === 'xargs' ? undefined : c.pipedFrom }, ctx);
    if (prog === 'env') ctx.facts.push('env *'); // bare env prints every variable
    return;
  }
  if (prog === 'su' || prog === 'runuser') {
    const ci = argv.findIndex((a) => a === '-c' || a === '--command');
    if (ci >= 0 && args[ci + 1]) return nested(args[ci + 1]!, ctx);
    return;
  }
  if (SHELLS.has(prog)) {
    const ci = argv.findIndex((a) => /^-[a-z]*c[a-z]*$/.test(a));
    if (ci >= 0) return args[ci + 1] ? nested(args[ci + 1]!, ctx) : void ctx.facts.push('unverified a shell -c without a command');
    const script = argv.find((a) => !a.startsWith('-'));
    if (script) { pathFact('read', args[argv.indexOf(script)]!, ctx); return; }
    if (c.stdin?.literal && c.stdin.text) return nested(c.stdin, ctx);
    return shellFromPipe(c, ctx, prog);
  }
  if (prog === 'eval') {
    return nested({ text: argv.join(' '), literal: args.every((a) => a.literal), vars: [] }, ctx);
  }
  if (/^(python[\d.]*|node|nodejs|deno|bun|perl|ruby|php)$/.test(prog)) interpreter(prog, argv, c, ctx);
  if (prog === 'printenv') { if (argv.length) argv.filter((a) => !a.startsWith('-')).forEach((a) => envFact(a, ctx)); else ctx.facts.push('env *'); }
  if (prog === 'export' && !argv.length) ctx.facts.push('env *');
  if (prog === 'set' && !argv.length) ctx.facts.push('env *');
  if (prog === 'cd' && args[0]?.literal) { const to = resolvePath(args[0].text, ctx); if (to) ctx.cwd = to; return; }
  if (prog === 'find') return find(args, ctx);
  if (prog === 'git') return gitFacts(argv, ctx);
  fileEffects(prog, args, ctx);
  packageFacts(prog, argv, ctx);
  sqlFacts(prog, argv, c, ctx);
  httpFacts(prog, argv, ctx);
  if ((prog === 'nc' || prog === 'ncat' || prog === 'netcat') && argv.some((a) => /^-[a-z]*l/.test(a))) ctx.facts.push(`listen ${prog} ${argv.join(' ')}`);
  if (prog === 'socat' && argv.some((a) => /LISTEN/i.test(a))) ctx.facts.push(`listen socat ${argv.join(' ')}`);
}

/** A string run as shell code again. Expansions inside it stay as written, so the inner reading sees
 *  them where they decide a program (unverified) and as variables elsewhere. */
async function nested(w: Word, ctx: Ctx): Promise<void> {
  if (/^\s*(\$\{?[\w@*#?!-]+\}?|\$\(.*\)|`.*`)\s*$/s.test(w.text)) { ctx.facts.push(`unverified a shell runs a string decided at run time: ${w.text.slice(0, 60)}`); return; }
  await readCommand(w.text, { ...ctx, depth: ctx.depth + 1, facts: ctx.facts });
}

function shellFromPipe(c: SimpleCommand, ctx: Ctx, prog: string): void {
  if (!c.pipedFrom) return; // an interactive shell: nothing runs from the call itself
  const chain: string[] = [];
  for (let u: SimpleCommand | undefined = c.pipedFrom; u; u = u.pipedFrom) chain.push(path.basename(u.words[0]?.text ?? ''));
  const fetcher = chain.find((p) => FETCHERS.has(p));
  if (fetcher) ctx.facts.push(`remote-exec ${fetcher} | ${prog}`);
  else ctx.facts.push(`unverified ${prog} runs code piped from ${chain.reverse().join(' | ')}`);
}

const SHELLS_OUT: Record<string, RegExp> = {
  python: /\b(os\.(system|popen|exec\w*|spawn\w*)|subprocess|pty\.spawn|commands\.getoutput|__import__)/,
  node: /child_process|\bexecSync\b|\bspawnSync\b|\bexec\(|Bun\.spawn|Deno\.(run|Command)/,
  perl: /\b(system|exec)\b|`|qx/,
  ruby: /\b(system|exec|spawn)\b|`|%x|Open3|IO\.popen/,
  php: /\b(system|exec|shell_exec|passthru|proc_open|popen)\b|`/,
};

function interpreter(prog: string, argv: string[], c: SimpleCommand, ctx: Ctx): void {
  const kind = prog.startsWith('python') ? 'python' : /^(node|nodejs|deno|bun)$/.test(prog) ? 'node' : prog;
  const flag = argv.findIndex((a) => /^-(c|e|-eval|E|r|p|-print)$/.test(a));
  const code = flag >= 0 ? argv[flag + 1] ?? '' : argv.includes('-') ? c.stdin?.text ?? '' : '';
  if (code && SHELLS_OUT[kind]?.test(code)) ctx.facts.push(`unverified a ${prog} one-liner that runs other programs`);
  for (const m of code.matchAll(/open\(\s*['"]([^'"]+)['"]|readFileSync\(\s*['"]([^'"]+)['"]/g)) pathFact('read', { text: m[1] ?? m[2]!, literal: true, vars: [] }, ctx);
  for (const m of code.matchAll(/environ(?:\.get\(|\[)\s*['"](\w+)['"]|process\.env\.(\w+)|ENV\[['"](\w+)['"]\]/g)) envFact(m[1] ?? m[2] ?? m[3]!, ctx);
  if (/\bos\.environ\b(?!\s*[.[])|process\.env\b(?!\.|\[)|\bENV\b(?!\[)/.test(code)) ctx.facts.push('env *');
}

function operands(args: Word[]): Word[] {
  const out: Word[] = [];
  let opts = true;
  for (const a of args) {
    if (opts && a.text === '--') { opts = false; continue; }
    if (opts && /^-./.test(a.text)) continue;
    out.push(a);
  }
  return out;
}

function fileEffects(prog: string, args: Word[], ctx: Ctx): void {
  const ops = operands(args);
  const argv = args.map((a) => a.text);
  const recursive = argv.some((a) => /^-[a-z]*[rR]/.test(a) || a === '--recursive');
  const ti = argv.findIndex((a) => a === '-t' || a === '--target-directory');
  const targetDir = ti >= 0 ? args[ti + 1] : undefined;
  switch (prog) {
    case 'rm': case 'shred': case 'unlink': case 'rmdir': case 'srm':
      for (const o of ops) pathFact(prog === 'rm' && recursive ? 'delete-r' : 'delete', o, ctx);
      if (!ops.length && recursive) ctx.facts.push('delete-r unknown arguments-from-input'); // `… | xargs rm -rf`
      return;
    case 'cp': case 'mv': case 'install': case 'ln': case 'rsync': case 'scp': {
      const list = ops.filter((o) => !/^[\w.-]+@?[\w.-]*:/.test(o.text) || o.text.startsWith('/'));
      const dest = targetDir ?? list.pop();
      for (const o of list) pathFact(prog === 'mv' ? 'delete' : 'read', o, ctx);
      if (dest) pathFact('write', dest, ctx);
      return;
    }
    case 'tee': case 'touch': case 'mkdir': case 'chmod': case 'chown': case 'chgrp': case 'truncate': case 'setfacl':
      for (const o of prog === 'chmod' || prog === 'chown' || prog === 'chgrp' ? ops.slice(1) : ops) pathFact('write', o, ctx);
      return;
    case 'dd':
      for (const a of args) {
        const m = /^(if|of)=(.*)$/.exec(a.text);
        if (m) pathFact(m[1] === 'of' ? 'write' : 'read', { ...a, text: m[2]! }, ctx);
      }
      return;
    case 'sed': case 'perl': {
      const inPlace = argv.some((a) => /^-[a-z]*i/.test(a) || a.startsWith('--in-place'));
      const files = prog === 'sed' && !argv.some((a) => a === '-e' || a === '-f') ? ops.slice(1) : ops;
      for (const o of files) pathFact(inPlace ? 'write' : 'read', o, ctx);
      return;
    }
  }
  const readsArgs = READERS_OF_ARGS.test(prog);
  for (const [i, a] of args.entries()) {
    if (/^-(c|e|m|-eval|-command)$/.test(args[i - 1]?.text ?? '')) continue; // code, not a path
    const v = /^--?[\w-]+=(.+)$/.exec(a.text)?.[1];
    const t = v ?? a.text;
    if ((readsArgs && !t.startsWith('-')) || looksLikePath(t)) if (!t.startsWith('-')) pathFact('read', { ...a, text: t }, ctx);
  }
}

const INSTALLS: Record<string, RegExp> = {
  npm: /^(install|i|add|in|isntall)$/, pnpm: /^(add|install|i)$/, bun: /^(add|install|i)$/, yarn: /^(add)$/,
  pip: /^install$/, pip3: /^install$/, uv: /^add$/, poetry: /^add$/, cargo: /^(add|install)$/, go: /^(get|install)$/,
  gem: /^install$/, 'apt-get': /^install$/, apt: /^install$/, dnf: /^install$/, yum: /^install$/, apk: /^add$/,
  brew: /^install$/, composer: /^require$/, pipx: /^install$/, conda: /^install$/, dotnet: /^add$/,
};

function packageFacts(prog: string, argv: string[], ctx: Ctx): void {
  let p = prog;
  let rest = argv;
  if (/^python[\d.]*$/.test(prog) && argv[0] === '-m' && argv[1]?.startsWith('pip')) { p = 'pip'; rest = argv.slice(2); }
  if (prog === 'uv' && argv[0] === 'pip') { p = 'pip'; rest = argv.slice(1); }
  const verb = INSTALLS[p];
  const vi = rest.findIndex((a) => !a.startsWith('-'));
  if (!verb || vi < 0 || !verb.test(rest[vi]!)) return;
  const valued = /^(-r|--requirement|-c|--constraint|--prefix|-C|--cwd|--registry|-e|--editable|--index-url|-i|--target|-t)$/;
  const pkgs: string[] = [];
  for (let i = vi + 1; i < rest.length; i++) {
    const a = rest[i]!;
    if (valued.test(a)) { i++; continue; }
    if (!a.startsWith('-') && a !== '.') pkgs.push(a);
  }
  const global = rest.some((a) => a === '-g' || a === '--global') ? ' -g' : '';
  for (const pkg of pkgs) ctx.facts.push(`install ${p}${global} ${pkg}`);
}

const SQL_CLIENTS = /^(psql|mysql|mariadb|sqlite3|duckdb|cockroach|clickhouse-client|mongosh|mongo|sqlcmd|redis-cli)$/;

function sqlFacts(prog: string, argv: string[], c: SimpleCommand, ctx: Ctx): void {
  if (!SQL_CLIENTS.test(prog)) return;
  const texts: string[] = [];
  argv.forEach((a, i) => { if (/^(-c|--command|-e|--execute|--eval|-Q|-q)$/.test(a) && argv[i + 1]) texts.push(argv[i + 1]!); });
  if (prog === 'sqlite3' || prog === 'duckdb') texts.push(...argv.filter((a) => !a.startsWith('-')).slice(1));
  if (prog === 'redis-cli') texts.push(argv.filter((a) => !a.startsWith('-')).join(' '));
  if (c.stdin?.text) texts.push(c.stdin.text);
  for (const t of texts) for (const s of t.split(';')) {
    const norm = s.replace(/\s+/g, ' ').trim().toLowerCase();
    if (norm) ctx.facts.push(`sql ${norm.slice(0, 500)}`);
  }
}

function httpFacts(prog: string, argv: string[], ctx: Ctx): void {
  if (prog !== 'curl' && prog !== 'wget' && prog !== 'http' && prog !== 'https' && prog !== 'xh') return;
  const url = argv.find((a) => /^[a-z]+:\/\//i.test(a)) ?? argv.filter((a) => !a.startsWith('-')).pop() ?? '';
  let method = 'get';
  const x = argv.findIndex((a) => a === '-X' || a === '--request' || a === '--method');
  if (x >= 0 && argv[x + 1]) method = argv[x + 1]!.toLowerCase();
  else if (argv.some((a) => /^-X./.test(a))) method = argv.find((a) => /^-X./.test(a))!.slice(2).toLowerCase();
  else if (argv.some((a) => /^(-d|--data.*|-F|--form.*|--json|-T|--upload-file|--post-data.*|--post-file.*|--body-data.*)$/.test(a) || /^(--data|--post-data|--json|--form)[=-]/.test(a) || /^-d./.test(a))) method = 'post';
  else if ((prog === 'http' || prog === 'https' || prog === 'xh') && /^(post|put|patch|delete)$/i.test(argv[0] ?? '')) method = argv[0]!.toLowerCase();
  ctx.facts.push(`http ${method} ${url}`);
}

async function find(args: Word[], ctx: Ctx): Promise<void> {
  const argv = args.map((a) => a.text);
  const roots = args.slice(0, Math.max(0, argv.findIndex((a) => a.startsWith('-')))).filter(Boolean);
  const start = roots.length ? roots : [{ text: '.', literal: true, vars: [] }];
  if (argv.includes('-delete')) for (const r of start) pathFact('delete-r', r, ctx);
  for (let i = 0; i < argv.length; i++) {
    if (!/^-(exec|execdir|ok|okdir)$/.test(argv[i]!)) continue;
    const end = argv.findIndex((a, j) => j > i && (a === ';' || a === '+'));
    const inner = args.slice(i + 1, end < 0 ? undefined : end);
    if (inner.length) {
      const sub = inner.map((w) => (w.text === '{}' ? { ...w, text: roots[0]?.text ?? '.' } : w));
      await readProgram(sub, { words: sub, assigns: [], redirects: [] }, ctx);
      if (path.basename(inner[0]!.text) === 'rm') for (const r of start) pathFact('delete-r', r, ctx);
    }
  }
}
