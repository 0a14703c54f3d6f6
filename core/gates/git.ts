// What a git command does to refs: a ref other than the task's own branch moved, created or
// deleted (`git-ref other <ref>`), a push (`git-push <remote> <refspecs>`), global configuration
// (`git-config global`), and the checkouts that leave the task's branch.
import { pathFact, type Ctx } from './facts.ts';

const GLOBAL_OPTS_WITH_VALUE = /^(-C|-c|--git-dir|--work-tree|--namespace|--exec-path)$/;

export function gitFacts(argv: string[], ctx: Ctx): void {
  let i = 0;
  while (i < argv.length && argv[i]!.startsWith('-')) i += GLOBAL_OPTS_WITH_VALUE.test(argv[i]!) ? 2 : 1;
  const sub = argv[i];
  const rest = argv.slice(i + 1);
  if (!sub) return;
  const own = (ref: string) => ctx.branch !== null && ref.replace(/^refs\/heads\//, '') === ctx.branch;
  const other = (ref: string) => { if (!own(ref) && !/^(HEAD|@)([~^]\d*)*$/.test(ref)) ctx.facts.push(`git-ref other ${ref}`); };
  const ops = rest.filter((a) => !a.startsWith('-'));
  const flags = rest.filter((a) => a.startsWith('-'));
  const has = (re: RegExp) => flags.some((f) => re.test(f));
  switch (sub) {
    case 'push':
      ctx.facts.push(`git-push ${ops.join(' ') || '(default)'}`.trim());
      return;
    case 'branch':
      if (has(/^-[a-zA-Z]*[dDmMfc]|^--(delete|move|force|copy|set-upstream-to|unset-upstream)/)) ops.forEach(other);
      return;
    case 'tag':
      if (!has(/^-(l|-list|n\d*|-contains|-points-at|v|-verify)$/) && ops.length) ops.forEach((t) => ctx.facts.push(`git-ref other refs/tags/${t}`));
      return;
    case 'update-ref':
      if (ops[0]) other(ops[0]);
      return;
    case 'checkout':
    case 'switch': {
      if (has(/^-[bBc]$|^-[cC]$|^--orphan$/) || rest.includes('--')) return; // a new branch of its own, or files
      const target = ops[0];
      if (!target || target === '.') return;
      if (sub === 'checkout' && (/[/.]/.test(target) && !/^[\w-]+\/[\w./-]+$/.test(target) || ops.length > 1)) { ops.forEach((o) => pathFact('write', { text: o, literal: true, vars: [] }, ctx)); return; }
      if (!own(target) && !/^(HEAD|@)([~^]\d*)*$|^-$/.test(target)) ctx.facts.push(`git-checkout other ${target}`);
      return;
    }
    case 'config':
      if (has(/^--(global|system)$/) && ops.length > 1 || has(/^--(global|system)$/) && has(/^--(unset|unset-all|add|replace-all|edit|remove-section|rename-section)$|^-e$/)) ctx.facts.push(`git-config global ${ops.join(' ')}`);
      return;
    case 'remote':
      if (/^(add|set-url|remove|rm|rename|set-head|set-branches)$/.test(ops[0] ?? '')) ctx.facts.push(`git-remote ${ops.join(' ')}`);
      return;
    case 'rebase':
      if (!has(/^--(continue|abort|skip|quit|edit-todo|show-current-patch)$/)) ctx.facts.push(`git-rewrite rebase ${ops.join(' ')}`.trim());
      return;
    case 'filter-branch':
    case 'filter-repo':
    case 'replace':
      ctx.facts.push(`git-rewrite ${sub}`);
      return;
  }
}
