// What a worker is told when its check failed: the command, how it ended and the output's tail,
// verbatim — the model reads the facts, not our summary of them.
import type { CheckVerdict } from './check.ts';

export function fixPrompt(v: Pick<CheckVerdict, 'command' | 'exit_code' | 'reason' | 'output_tail'>, fix: number, allowed: number): string {
  const how = v.reason ?? `exit code ${v.exit_code}`;
  return [
    `The project's check failed after your last turn (fix ${fix} of ${allowed}).`,
    `Command: ${JSON.stringify(v.command)}`,
    `Result: ${how}`,
    'Output (its end):',
    '```',
    v.output_tail.trimEnd(),
    '```',
    'Fix the work so that this check passes, in the same working directory. The check runs again when you finish;',
    'a turn that changes nothing ends the task as stuck.',
  ].join('\n');
}
