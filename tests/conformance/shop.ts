/**
 * The shop, for the conformance tests that push from a real claude: a project wired by `askbridge
 * install` that is a git repository whose `origin` (a bare repository beside it) has `main` at a
 * commit the local `main` has since rewritten, so that only a force-push moves it; and claude
 * sessions in it (tmux, `--permission-mode default`), each with its own fake model.
 *
 * Everything made here is handed to `defer`, the test file's cleanups, to be stopped or removed
 * after the case (claude before its fake model, both before the files).
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { Daemon } from '../stack/daemon.js';
import { createProject, hookEnvOf, withScene, type Project } from './askbridge-stack.js';
import { startClaude, type ClaudeSession } from './claude-tmux.js';
import { startFakeAnthropic, type FakeAnthropic, type RecordedToolResult, type Step } from './fake-anthropic.js';

const execFileAsync = promisify(execFile);

/** Where the shop's things go once the case is over. */
type Defer = (cleanup: () => Promise<unknown>) => void;

/** git in the project's temp folders only: its HOME is that folder, so no user or system config is read or written. */
export async function git(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await execFileAsync('git', ['-c', 'user.name=Shop', '-c', 'user.email=shop@example.invalid', ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dirname(cwd), GIT_CONFIG_NOSYSTEM: '1', LANG: 'C' },
  });
  return stdout.trim();
}

/** The shop, its hook reaching `daemon`, with `files` (name: content) in its first commit. */
export async function createShop({ daemon, claudeBin, files, defer }: { daemon: Daemon; claudeBin: string; files: Record<string, string>; defer: Defer }): Promise<{ project: Project; remote: string }> {
  const project = await createProject({ daemon, claudeBin });
  defer(() => project.remove());
  const remote = join(dirname(project.dir), 'remote.git');
  for (const [name, content] of Object.entries(files)) await writeFile(join(project.dir, name), content);
  await git(dirname(project.dir), 'init', '--quiet', '--bare', '--initial-branch=main', remote);
  await git(project.dir, 'init', '--quiet', '--initial-branch=main');
  await git(project.dir, 'add', ...Object.keys(files));
  await git(project.dir, 'commit', '--quiet', '-m', 'First');
  await git(project.dir, 'remote', 'add', 'origin', remote);
  await git(project.dir, 'push', '--quiet', 'origin', 'main');
  await git(project.dir, 'commit', '--quiet', '--amend', '-m', 'First, reworded');
  return { project, remote };
}

export interface ShopSession {
  fake: FakeAnthropic;
  claude: ClaudeSession;
}

/** A claude session in the project, its model playing `steps`. */
export async function startShopSession({ daemon, claudeBin, project, steps, defer }: { daemon: Daemon; claudeBin: string; project: Project; steps: Step[]; defer: Defer }): Promise<ShopSession> {
  const fake = await startFakeAnthropic({ steps, finalText: 'Nothing more to do.' });
  defer(() => fake.close());
  const claude = await startClaude({
    baseUrl: fake.url,
    projectDir: project.dir,
    claudeBin,
    // npm checks for its own updates unless told not to: nothing here may reach the network.
    env: { ...hookEnvOf(daemon), npm_config_update_notifier: 'false' },
    args: ['--permission-mode', 'default'],
  });
  defer(() => claude.stop());
  return { fake, claude };
}

/** Types a prompt; accepted once the model got a new main request. */
export async function prompt(session: ShopSession, text: string): Promise<void> {
  const before = session.fake.mainRequests.length;
  await session.claude.submit(text, { accepted: () => session.fake.mainRequests.length > before });
}

/** The result of the model's `step`th tool call, once claude sent it; else what failed, with the scene. */
export async function stepResult(daemon: Daemon, session: ShopSession, step: number, timeoutMs = 30_000): Promise<RecordedToolResult> {
  try {
    return await session.fake.waitForStepResult(step, timeoutMs);
  } catch (error) {
    throw await withScene(daemon, session.claude, error);
  }
}
