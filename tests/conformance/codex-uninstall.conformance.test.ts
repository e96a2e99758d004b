/**
 * `askbridge uninstall --codex` against the real Codex CLI: Codex keys a hook's trust (and its
 * on/off switch) by the hook's place in its hooks.json, so taking askbridge's entry out must not
 * cost the person's own hooks after it their trust.
 *
 * One CODEX_HOME with askbridge's hook installed by the real `askbridge install --codex --user`; the
 * person adds their own PermissionRequest hook after it and trusts it in Codex's own "Hooks need
 * review" prompt, as a person does. After `askbridge uninstall --codex --user`, a real Codex turn
 * whose model asks to leave the sandbox runs the person's hook at once, with no review asked.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../stack/clock.js';
import { baseEnv } from '../stack/env.js';
import { runCli } from '../stack/processes.js';
import { setUpCodex, startCodex, type CodexSession, type CodexSetup } from './codex-tmux.js';

/** Codex's own approval dialog: the person's hook prints nothing, so Codex asks after it ran. */
const DIALOG = 'Would you like to run the following command?';
const STEPS = [{ exec: 'echo ASKBRIDGE_MARK_$((6*7))', justification: 'Print the marker' }, { say: 'Finished.' }];

let setup: CodexSetup;
let askbridgeHome: string;
let codex: CodexSession | undefined;

beforeAll(async () => {
  // No daemon: once uninstalled, nothing of askbridge's runs in Codex.
  askbridgeHome = await mkdtemp(join(tmpdir(), 'askbridge-conformance-codex-uninstall-'));
  setup = await setUpCodex({ ASKBRIDGE_HOME: askbridgeHome });
  console.log(`Codex under test: ${setup.codex.version} [${setup.codex.bin}]`);
}, 120_000);

afterAll(async () => {
  await codex?.stop();
  await setup?.remove();
  await rm(askbridgeHome, { recursive: true, force: true });
});

describe('uninstall --codex and the trust of the person’s own hooks', () => {
  it("the person's own hook after askbridge's, trusted in Codex, still runs without a review once askbridge is uninstalled", async () => {
    const hooksFile = join(setup.codexHome, 'hooks.json');
    const configFile = join(setup.codexHome, 'config.toml');
    const ran = join(dirname(setup.codexHome), 'person-hook-ran.json');
    const hooks = JSON.parse(readFileSync(hooksFile, 'utf8')) as { hooks: { PermissionRequest: unknown[] } };
    hooks.hooks.PermissionRequest.push({ hooks: [{ type: 'command', command: `cat > '${ran}'` }] });
    writeFileSync(hooksFile, `${JSON.stringify(hooks, null, 2)}\n`);

    // The person trusts their new hook in Codex's own prompt; Codex records it by its place (group 1).
    codex = await startCodex(setup, {});
    await codex.waitForScreen('Hooks need review');
    await codex.pressKey('Down');
    await codex.waitForScreen(/› 2\. Trust all and continue/);
    await codex.pressKey('Enter');
    await waitUntil(() => (readFileSync(configFile, 'utf8').includes(`[hooks.state."${hooksFile}:permission_request:1:0"]`) ? true : undefined), 15_000, "Codex's trust of the person's hook");
    await codex.stop();

    const uninstalled = await runCli(['uninstall', '--codex', '--user'], baseEnv({ ASKBRIDGE_HOME: askbridgeHome, HOME: dirname(setup.codexHome), CODEX_HOME: setup.codexHome }));
    expect(uninstalled.code, uninstalled.stderr).toBe(0);
    expect(readFileSync(hooksFile, 'utf8')).not.toContain('askbridge-hook.cjs');

    setup.model.play(STEPS);
    // Codex draws its composer before it asks for a review: the turn, not the first screen, tells.
    codex = await startCodex(setup, {});
    await codex.submit('print the marker');
    await codex.waitForScreen(DIALOG);
    expect(existsSync(ran)).toBe(true);
    expect(JSON.parse(readFileSync(ran, 'utf8'))).toMatchObject({ hook_event_name: 'PermissionRequest', tool_input: { command: STEPS[0]!.exec } });
    expect(await codex.screen()).not.toMatch(/need review/i);
    expect(uninstalled.stdout).toContain('your hook after it keeps its trust');
  });
});
