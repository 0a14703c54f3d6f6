// The substrate in use: Claude Code, assembled from its three parts behind the port.
import { claudeBin, claudeCommand, claudeEnv } from './claude.ts';
import type { Substrate } from './port.ts';
import { deriveStatus } from './status.ts';
import { classifyLine, readResult, RESULT_EVENT_TYPE } from './stream-json.ts';

/** Claude Code, run with `base` as the environment passed through to every process. */
export function claudeCode(base: NodeJS.ProcessEnv = process.env): Substrate {
  return {
    name: 'claude-code',
    resultEventType: RESULT_EVENT_TYPE,
    command: (intent) => claudeCommand(intent, base),
    versionCommand: () => ({ bin: claudeBin(base), args: ['--version'], env: claudeEnv(base) }),
    classify: classifyLine,
    deriveStatus,
    readResult,
  };
}

/** The substrate used where none is given (the journal writer's own classification, fixtures). */
export const defaultSubstrate: Substrate = claudeCode();
