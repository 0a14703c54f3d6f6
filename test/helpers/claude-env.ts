// The environment the real `claude` CLI runs with in tests: the scripted model on loopback in place
// of Anthropic's API, a private config folder, no retries or background traffic, and the marker
// that finds every process a test left behind (marked-processes.ts).
import fs from 'node:fs';
import path from 'node:path';

export function claudeEnv(modelUrl: string, dataDir: string, marker: string): Record<string, string> {
  const configDir = path.join(dataDir, 'claude-config');
  fs.mkdirSync(configDir, { recursive: true });
  return {
    ANTHROPIC_BASE_URL: modelUrl,
    ANTHROPIC_API_KEY: 'sk-ant-scripted-not-a-secret',
    CLAUDE_CONFIG_DIR: configDir,
    CLAUDE_CODE_MAX_RETRIES: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    PD_TEST_MARKER: marker,
  };
}
