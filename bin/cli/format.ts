// How the operator CLI prints: its --help from the command table, and the usage tables.
import type { UsageRow, UsageTotals } from '../../core/contracts/usage.ts';

/** One line of --help per command: its words and arguments, then what it does (wrapped under a long one). */
export function helpText(commands: { usage: string; summary: string }[], footer: string): string {
  const lines = commands.map((c) => (c.usage.length < 38 ? `  ${c.usage.padEnd(38)}${c.summary}` : `  ${c.usage}\n${' '.repeat(40)}${c.summary}`));
  return ['usage: npm run dispatch -- <command>', ...lines, footer].join('\n');
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

/** Takes `name VALUE` out of args; undefined when absent. */
export function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i === -1) return undefined;
  const [, value] = args.splice(i, 2);
  if (value === undefined) throw new Error(`${name} needs a value`);
  return value;
}
