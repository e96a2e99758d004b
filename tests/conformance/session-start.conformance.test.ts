/**
 * The SessionStart hook (`askbridge start --background --quiet`, as `install` writes it) when
 * another program holds askbridge's port, on the real client: what its one JSON document does.
 * Observed on 2.1.330, in an interactive session: `systemMessage` is shown to the person
 * (`SessionStart:startup says: ...`), `hookSpecificOutput.additionalContext` reaches the model (a
 * system message, `SessionStart hook additional context: ...`), and `continue: false` with
 * `stopReason` stops nothing: the session starts, the person's prompt reaches the model, and the
 * stop reason is shown nowhere.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sessionStartCommand } from '../../src/claude-settings.js';
import { assertBuildIsFresh } from '../stack/env.js';
import { startClaude } from './claude-tmux.js';
import { startFakeAnthropic } from './fake-anthropic.js';
import { DATABASE } from './questions.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

/** Everything a request's body says, as one string. */
const bodyText = (body: unknown) => JSON.stringify(body ?? null);

describe('the SessionStart hook facing a program on the port', () => {
  it('warns the person in the terminal and tells the model not to ask through askbridge; continue: false stops nothing', async () => {
    assertBuildIsFresh();
    const requests: string[] = [];
    const squatter: Server = createServer((request, response) => {
      requests.push(`${request.method} ${request.url}`);
      response.end('not askbridge');
    });
    await new Promise<void>((listening) => squatter.listen(0, '127.0.0.1', listening));
    cleanups.push(() => new Promise((closed) => squatter.close(closed)));
    const port = (squatter.address() as { port: number }).port;
    const home = await mkdtemp(join(tmpdir(), 'askbridge-conformance-state-'));
    cleanups.push(() => rm(home, { recursive: true, force: true }));

    const fake = await startFakeAnthropic({ script: DATABASE });
    cleanups.push(() => fake.close());
    const claude = await startClaude({
      baseUrl: fake.url,
      settings: { hooks: { SessionStart: [{ hooks: [{ type: 'command', command: sessionStartCommand(port), timeout: 30 }] }] } },
      env: { ASKBRIDGE_HOME: home, XDG_CONFIG_HOME: join(home, 'xdg-config') },
    });
    cleanups.push(() => claude.stop());

    // The person sees the warning (systemMessage) under the banner.
    await claude.waitForScreen(`SessionStart:startup says: askbridge: another program holds 127.0.0.1:${port}`, 30_000);

    // The session was not stopped: a prompt still reaches the model, which was told not to ask through askbridge.
    const before = fake.mainRequests.length;
    await claude.submit('Ask me which database to use.', { accepted: () => fake.mainRequests.length > before });
    const sent = bodyText(fake.mainRequests.at(-1)?.body);
    expect(sent).toContain(
      `SessionStart hook additional context: askbridge cannot be trusted in this session: another program holds 127.0.0.1:${port}, where askbridge's hooks send the user's questions. Do not call the AskUserQuestion tool in this session`,
    );
    // The stop reason is shown to nobody: neither the model nor the screen has it.
    expect(sent).not.toContain('then start the session again.');
    expect(await claude.screen()).not.toContain('then start the session again.');
    // The hook only looked: nothing was sent to the program on the port.
    expect(requests).toEqual([]);
  });
});
