// `askbridge install --codex` and `uninstall --codex`: askbridge's PermissionRequest entry in Codex
// CLI's hooks.json (the user's, in CODEX_HOME, or a project's .codex/hooks.json), which runs the
// command hook with `--agent codex`, and the trust Codex needs before it runs a new or changed hook,
// recorded in the user's config.toml because the person ran install. Everything else in both files
// stays as it was; running it twice changes nothing the second time; uninstall removes only this,
// and carries the trust of the person's hooks after it to their new places. Neither writes a
// project's file through a symbolic link its repository may commit.
import { dirname } from 'node:path';
import { makeFolders } from '../folders.js';
import { writeSettings } from '../claude-settings.js';
import {
  codexConfigPath,
  codexHandler,
  codexHome,
  codexHooksPath,
  codexTrustHash,
  codexTrustKey,
  findCodexHooks,
  hookStateAfterRemoval,
  readCodexConfig,
  readCodexHooks,
  withCodexHook,
  withoutCodexHook,
  withTrust,
  writeTextFile,
} from './codex-hooks.js';
import { CliError, type CommandIo } from './command.js';
import { symbolicLinkOnTheWay } from './symbolic-link.js';

/** Where to install: the user's Codex home, or the project's .codex folder. */
type Target = { projectDir: string; homeDir: string; user: boolean };

/** What install.ts gives: the status message naming where to answer, and its check that git will not commit a project's file. */
export type CodexInstallContext = { statusMessage: string; keepOutOfGit: (file: string) => void };

/** The hooks.json for the target, read and checked: a broken one changes nothing. */
function readTarget(io: CommandIo, target: Target) {
  const home = codexHome(io.env, target.homeDir);
  const path = codexHooksPath(target.user ? { user: true, codexHome: home } : { user: false, projectDir: target.projectDir });
  const hooks = readCodexHooks(path);
  if (hooks.state === 'invalid') throw new CliError(`${path}: ${hooks.error}; fix it first, nothing was changed`);
  return { home, path, before: hooks.state === 'ok' ? hooks.file : undefined };
}

/** What Codex shows at its next start when the trust could not be recorded, and what to choose. */
function reviewAtStart(configPath: string): string {
  return `${configPath} keeps Codex's hook trust in a form askbridge does not edit, so nothing was written there: at Codex's next start it says "Hooks need review"; choose "Review hooks" and trust askbridge's PermissionRequest hook (\`node …/askbridge-hook.cjs --agent codex\`), or "Trust all and continue"\n`;
}

export async function installCodex(io: CommandIo, target: Target, context: CodexInstallContext): Promise<void> {
  const { home, path, before } = readTarget(io, target);
  const configPath = codexConfigPath(home);
  const config = readCodexConfig(configPath);
  // Not secret, but this machine's path: kept out of a project's commits as Claude Code's entries are.
  if (!target.user) context.keepOutOfGit(path);
  const after = withCodexHook(before ?? {}, codexHandler(context.statusMessage));
  const [entry] = findCodexHooks(after);
  if (!entry) throw new Error('the entry just added is not there');
  const trusted = withTrust(config, codexTrustKey(path, entry), codexTrustHash(entry));

  makeFolders(dirname(path));
  const changed = await writeSettings(path, before, after);
  io.stdout(`askbridge hook for Codex ${changed ? '' : 'already '}installed in ${path}: Codex's permission requests wait in askbridge\n`);
  if (trusted === 'unsupported') io.stderr(reviewAtStart(configPath));
  else if (trusted === config) io.stdout(`already trusted in ${configPath}\n`);
  else {
    makeFolders(home);
    await writeTextFile(configPath, trusted);
    io.stdout(`trusted in ${configPath}, as you ran install: Codex runs it without asking you to review it\n`);
  }
  if (!target.user) io.stderr(`note: Codex reads ${path} only in a project it trusts (it asks when you first start it there)\n`);
  if (changed) io.stderr('Codex reads hooks when a session starts: restart running `codex` sessions to pick it up.\n');
}

export async function uninstallCodex(io: CommandIo, target: Target): Promise<void> {
  const { home, path, before } = readTarget(io, target);
  // As install refuses it: a link a repository commits would take the edit into a file elsewhere.
  const link = target.user ? undefined : symbolicLinkOnTheWay(path);
  if (link) throw new CliError(`${path}: ${link.path} is a symbolic link to ${link.to}, so uninstall would edit the file there; nothing was changed (take askbridge's entry out of ${path} by hand if it is yours)`);
  const entries = before ? findCodexHooks(before) : [];
  if (!before || entries.length === 0) {
    io.stdout(`no askbridge hook for Codex installed in ${path}\n`);
    return;
  }
  const configPath = codexConfigPath(home);
  const config = readCodexConfig(configPath);
  const state = hookStateAfterRemoval(config, path, before);
  await writeSettings(path, before, withoutCodexHook(before));
  io.stdout(`askbridge hook for Codex removed from ${path}\n`);
  if (state === 'unsupported') {
    io.stderr(`${configPath} keeps Codex's hook trust in a form askbridge does not edit, so nothing was changed there: Codex keeps a hook's trust by its place in ${path}, so at its next start it may ask you to review your own hooks that came after askbridge's ("Hooks need review")\n`);
  } else if (state.text !== config) {
    await writeTextFile(configPath, state.text);
    const done = [
      state.removed > 0 ? 'its trust removed' : '',
      state.moved === 0 ? '' : `${state.moved === 1 ? 'your hook after it keeps its trust' : `your ${state.moved} hooks after it keep their trust`} (Codex keeps trust by a hook's place, which moved up)`,
    ].filter((part) => part !== '');
    io.stdout(`${done.join('; ')} in ${configPath}\n`);
  }
}
