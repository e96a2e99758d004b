// What happens to a question nobody answers. Until configuration arrives, one rule: wait for a
// person for DEFAULT_WAIT_SECONDS, then let the terminal ask (the hook prints nothing).
import type { QuestionPlan } from './app.js';

/** Well below the hook timeout that .claude/settings.example.json sets (3600 s), and below Claude Code's default (600 s). */
export const DEFAULT_WAIT_SECONDS = 300;

export function planLetTerminalAnswer(waitSeconds = DEFAULT_WAIT_SECONDS): () => QuestionPlan {
  return () => ({
    waitMs: waitSeconds * 1000,
    timeout: { action: 'terminal', summary: 'the terminal will ask' },
    onTimeout: () => ({ status: 'terminal', source: { kind: 'policy', action: 'terminal', trigger: 'timeout' }, hookOutput: null }),
  });
}
