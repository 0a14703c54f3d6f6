// The environment the real `claude` CLI runs with in tests: the scripted model on loopback in place
// of Anthropic's API, a private config folder and HOME, no retries or background traffic, and the
// marker that finds every process a test left behind (marked-processes.ts).
//
// The private HOME matters: the CLI runs each Bash call in a login shell, which reads ~/.profile and
// ~/.bashrc. On a machine whose profile runs e.g. `pyenv init`, a worker group killed by a test
// (SIGKILL) can leave pyenv's rehash lock behind, and from then on every login shell waits 60 s for
// it — every real-CLI test of the suite times out. A test's worker reads no profile of the machine.
import fs from 'node:fs';
import path from 'node:path';

export function claudeEnv(modelUrl: string, dataDir: string, marker: string): Record<string, string> {
  const configDir = path.join(dataDir, 'claude-config');
  fs.mkdirSync(configDir, { recursive: true });
  const home = path.join(dataDir, 'home');
  fs.mkdirSync(home, { recursive: true });
  // Git's identity for a worker's commits in a folder that has none of its own.
  fs.writeFileSync(path.join(home, '.gitconfig'), '[user]\n\tname = Test Worker\n\temail = worker@example.invalid\n[commit]\n\tgpgsign = false\n');
  return {
    HOME: home,
    ANTHROPIC_BASE_URL: modelUrl,
    ANTHROPIC_API_KEY: 'sk-ant-scripted-not-a-secret',
    CLAUDE_CONFIG_DIR: configDir,
    CLAUDE_CODE_MAX_RETRIES: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    PD_TEST_MARKER: marker,
  };
}
