// `askbridge doctor --route --machine` with the real daemon and CLI: a rule's `machine: "local"` is
// this machine's own sessions, and `--machine local` asks about them in the same word (as no
// `--machine` does); a remote hook's name asks about that machine; a name no hook could send (spaces
// around it, too long) is refused with why, never explained as if an ask could come from it.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/protocol.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { runCli } from '../stack/processes.js';

const PROJECT = '/home/alice/projects/shop';

let daemon: Daemon;

beforeAll(async () => {
  const home = await mkdtemp(join(tmpdir(), 'askbridge-e2e-'));
  const addedAt = Date.now();
  await writeFile(join(home, 'people.json'), `${JSON.stringify(['alice', 'bob'].map((name) => ({ name, groups: [], addedAt })))}\n`);
  const route = [
    { name: 'this machine', machine: 'local', to: ['alice'] },
    { name: 'ci', machine: 'ci-runner', to: ['bob'] },
  ];
  daemon = await startDaemon({ home, config: { route } });
}, 60_000);

afterAll(async () => {
  await daemon?.stop();
});

const doctorRoute = (...args: string[]) => runCli(['doctor', '--route', '--project', PROJECT, ...args], daemon.env);

describe('askbridge doctor --route --machine', () => {
  it('takes `local` for this machine\'s own sessions, as a rule names them, and no --machine the same', async () => {
    for (const args of [['--machine', 'local'], []]) {
      const shown = await doctorRoute(...args);
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).toContain('rule: this machine (to alice)');
    }
  });

  it("takes any other name for a remote hook's machine", async () => {
    const shown = await doctorRoute('--machine', 'ci-runner');
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('rule: ci (to bob)');
    const unknown = await doctorRoute('--machine', 'build-box');
    expect(unknown.stdout).toContain('no rule matches (of 2)');
  });

  it('refuses a name no hook could send, and says why', async () => {
    const spaced = await doctorRoute('--machine', ' ci-runner ');
    expect(spaced.code).toBe(2);
    expect(spaced.stderr).toContain("machine: a remote hook's machine name has no spaces around it (they are trimmed): no ask could come from this one");
    const long = await doctorRoute('--machine', 'm'.repeat(LIMITS.machineChars + 1));
    expect(long.code).toBe(2);
    expect(long.stderr).toContain(`machine: a remote hook's machine name is at most ${LIMITS.machineChars} characters`);
  });
});
