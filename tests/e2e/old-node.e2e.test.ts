// On a Node older than askbridge supports, every command and `npm start` say so in one line, before
// anything that needs a newer Node loads (Node 18 lacks zlib's crc32 and util's styleText: without
// the check, `start` died on a SyntaxError and `watch` on a missing export). The old Node is npm's
// own build of it, fetched into .cache/node/ as the conformance suite fetches its clients.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { baseEnv, CLI_BIN, REPO_ROOT } from '../stack/env.js';
import { cannotRunHere } from '../stack/unavailable.js';

const PACKAGE = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { engines: { node: string }; config: { oldNodeVersion: string } };
const OLD_VERSION = PACKAGE.config.oldNodeVersion;
/** What package.json's engines asks for (">=20.19"), as the message names it. */
const MINIMUM_NODE = PACKAGE.engines.node.replace(/^>=/, '');

/** The folder holding the old `node`, fetched (or found in .cache) by scripts/conformance-client.mjs; undefined when it cannot be had. */
function oldNodeBin(): string | undefined {
  try {
    const dir = execFileSync(process.execPath, [join(REPO_ROOT, 'scripts', 'conformance-client.mjs'), 'node'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 180_000 }).trim();
    return join(dir, 'node_modules', '.bin');
  } catch (error) {
    cannotRunHere(`the tests on Node ${OLD_VERSION}`, `Node ${OLD_VERSION} could not be fetched with npm (${(error as Error).message.split('\n')[0]})`);
    return undefined;
  }
}

const bin = oldNodeBin();
const home = mkdtempSync(join(tmpdir(), 'askbridge-old-node-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));
const MESSAGE = `askbridge needs Node ${MINIMUM_NODE} or newer; this is ${OLD_VERSION}\n`;

describe.skipIf(bin === undefined)(`askbridge on Node ${OLD_VERSION}`, () => {
  it.each(['start', 'watch', 'status', 'answer', 'history', '--help', ''])('`askbridge %s` says which Node it needs, in one line, and exits 1', (command) => {
    const argv = command === '' ? [] : [command];
    const result = spawnSync(join(bin!, 'node'), [CLI_BIN, ...argv], { encoding: 'utf8', env: baseEnv({ ASKBRIDGE_HOME: home }), timeout: 20_000 });
    expect(result.stderr).toBe(MESSAGE);
    expect(result.stdout).toBe('');
    expect(result.status).toBe(1);
  });

  it('`npm start` says it before building or starting anything', () => {
    const result = spawnSync('npm', ['start'], { cwd: REPO_ROOT, encoding: 'utf8', env: baseEnv({ ASKBRIDGE_HOME: home, PATH: `${bin}${delimiter}${process.env.PATH}` }), timeout: 60_000 });
    expect(result.status).toBe(1);
    // npm may warn first that it does not support that Node itself: that line is npm's.
    const ours = result.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('npm '));
    expect(ours).toEqual([MESSAGE.trimEnd()]);
    expect(`${result.stdout}${result.stderr}`).not.toMatch(/building|SyntaxError|\n\s+at /);
  });
});
