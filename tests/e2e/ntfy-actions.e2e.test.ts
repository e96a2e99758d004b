// ntfy's one-tap buttons end to end: the real daemon behind a real TLS front (Caddy) at its public
// URL, an ntfy entry with `actions`, and a stand-in ntfy server that taps a button as the ntfy app
// does (a POST through the public URL). A simple question gets one button per option, no two that
// read the same, and one tap answers it once, as ntfy; every other tap of it is refused; anything
// else, or a daemon without a public URL, gets one button that opens the page. No capability is
// ever written anywhere. One asker flooding holds only its share of the buttons: another asker's
// keep working.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MAX_CAPABILITIES, MAX_PENDING, shareOf } from '../../src/daemon/limits.js';
import { ONE_TAP_OPTIONS } from '../../src/daemon/notice.js';
import { waitUntil } from '../stack/clock.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { freshPayload, type HookPayload } from '../stack/fixtures.js';
import { postAsHttpHook } from '../stack/hook-client.js';
import { startNtfyService, type NtfyAction, type NtfyMessage, type NtfyService } from '../stack/ntfy-service.js';
import { killStrayProcesses, parseJson, runHook, type RunningProcess } from '../stack/processes.js';
import { caddyAvailability, prepareTlsFront, type TlsFront } from '../stack/tls-front.js';

const caddy = caddyAvailability();
const CHANGED = 'public URL changed: the new one is accepted, the old one no longer';

let front: TlsFront;
let ntfy: NtfyService;
let daemon: Daemon;
let runs = 0;
/** Every capability a button carried, to look for afterwards. */
const capabilities: string[] = [];

const userConfigFile = () => join(daemon.home, 'xdg-config', 'askbridge', 'config.json');
const config = (publicUrl: string | undefined) => ({ waitSeconds: 120, ...(publicUrl ? { publicUrl } : {}), notify: [{ ntfy: `${ntfy.origin}/askbridge-questions`, actions: true }] });

describe.skipIf(!caddy.available)("ntfy's buttons, through the public URL", () => {
  beforeAll(async () => {
    front = await prepareTlsFront();
    ntfy = await startNtfyService();
    daemon = await startDaemon({ config: config(front.origin) });
    await front.forwardTo(daemon.port);
  }, 60_000);
  afterEach(killStrayProcesses);
  afterAll(async () => {
    await daemon?.stop();
    await front?.stop();
    await ntfy?.close();
  });

  /** A question from the command hook, waiting, and the ntfy message about it. */
  async function ask(change: (payload: HookPayload) => void = () => {}, fixture = '01-single-select'): Promise<{ hook: RunningProcess; id: string; payload: HookPayload; message: NtfyMessage }> {
    const payload = freshPayload(fixture, `ntfy${++runs}`);
    change(payload);
    const hook = runHook(payload, daemon.env);
    const { id } = await daemon.waitForAsk(payload.tool_use_id);
    const message = await ntfy.waitFor((told) => told.click.endsWith(`#question=${id}`));
    for (const action of message.actions ?? []) if (action.action === 'http' && action.body) capabilities.push(parseJson<{ capability: string }>(action.body, 'action body').capability);
    return { hook, id, payload, message };
  }

  const answersOf = async (hook: RunningProcess) => Object.values(parseJson<{ hookSpecificOutput: { updatedInput: { answers: Record<string, string> } } }>((await hook.result).stdout, 'hook stdout').hookSpecificOutput.updatedInput.answers);
  const tap = (action: NtfyAction | undefined, body?: string) => ntfy.perform(action!, { ca: front.ca, ...(body === undefined ? {} : { body }) });
  const gone = { error: { code: 'gone', message: 'this button no longer answers: the question was answered or has ended' } };

  it('gives a single-select question of three options a button each; one tap answers it once, as ntfy, and every other tap is refused', async () => {
    const { hook, id, payload, message } = await ask((p) => p.tool_input.questions[0]!.options.push({ label: 'MySQL', description: 'What the old service ran.' }));
    const url = `${front.origin}/api/one-tap`;
    expect(message.actions).toEqual(
      ['PostgreSQL (Recommended)', 'SQLite', 'MySQL'].map((label) => ({ action: 'http', label, url, method: 'POST', headers: { 'content-type': 'application/json' }, body: expect.stringMatching(/^\{"capability":"[A-Za-z0-9_-]{43}"\}$/), clear: true })),
    );
    expect(message.click).toBe(`${front.origin}/#question=${id}`);

    const answered = await tap(message.actions![1]);
    expect(answered.status, answered.body).toBe(200);
    expect(JSON.parse(answered.body)).toEqual({ answered: true, label: 'SQLite' });
    expect(await answersOf(hook)).toEqual(['SQLite']);
    expect((await daemon.finishedAsk(payload.tool_use_id)).source).toEqual({ kind: 'person', client: 'ntfy' });
    expect((await daemon.history()).find((line) => line.id === id)).toMatchObject({ source: 'person', detail: 'ntfy', status: 'answered' });

    // The same button again, another option's, and a capability altered by one character: the same refusal for each.
    const replay = await tap(message.actions![1]);
    const other = await tap(message.actions![0]);
    const { capability } = parseJson<{ capability: string }>((message.actions![2] as { body: string }).body, 'action body');
    const altered = await tap(message.actions![2], JSON.stringify({ capability: `${capability.slice(0, -1)}${capability.endsWith('A') ? 'B' : 'A'}` }));
    for (const refused of [replay, other, altered]) {
      expect(refused.status).toBe(410);
      expect(JSON.parse(refused.body)).toEqual(gone);
    }
    expect((await daemon.ask(id)).answers).toEqual({ [payload.tool_input.questions[0]!.question]: 'SQLite' });
  });

  it('gives a question of four options, and a multi-select one, one button that opens the page', async () => {
    const four = await ask((p) => p.tool_input.questions[0]!.options.push({ label: 'MySQL', description: '' }, { label: 'DuckDB', description: '' }));
    expect(four.message.actions).toEqual([{ action: 'view', label: 'Open', url: `${front.origin}/#question=${four.id}` }]);
    const multi = await ask(() => {}, '02-multi-select');
    expect(multi.message.actions).toEqual([{ action: 'view', label: 'Open', url: `${front.origin}/#question=${multi.id}` }]);
    for (const { hook } of [four, multi]) {
      hook.child.kill('SIGTERM');
      await hook.result;
    }
  });

  it('never gives two options buttons that read the same: alike for their first 40 characters, each is cut where it differs; alike but for spaces, only Open', async () => {
    const shared = 'Deploy the release to the production cluster now, ';
    const apart = await ask((p) => {
      p.tool_input.questions[0]!.options = [
        { label: `${shared}during business hours`, description: '' },
        { label: `${shared}tonight after midnight`, description: '' },
        { label: 'Wait', description: '' },
      ];
    });
    expect(apart.message.actions?.map((action) => action.label)).toEqual(['…now, during business hours', '…now, tonight after midnight', 'Wait']);
    const answered = await tap(apart.message.actions![1]);
    expect(answered.status, answered.body).toBe(200);
    expect(await answersOf(apart.hook)).toEqual([`${shared}tonight after midnight`]);

    const alike = await ask((p) => {
      p.tool_input.questions[0]!.options = [
        { label: 'Use SQLite', description: '' },
        { label: 'Use  SQLite', description: '' },
      ];
    });
    expect(alike.message.actions).toEqual([{ action: 'view', label: 'Open', url: `${front.origin}/#question=${alike.id}` }]);
    alike.hook.child.kill('SIGTERM');
    await alike.hook.result;
  });

  it('without a public URL, gives even a simple question only the button that opens the page', async () => {
    await writeFile(userConfigFile(), JSON.stringify(config(undefined)));
    try {
      await daemon.waitForLog((entry) => entry.msg === CHANGED && entry.to === null, 10_000, 'the public URL to go');
      const { hook, id, message } = await ask();
      expect(message.actions).toEqual([{ action: 'view', label: 'Open', url: `${daemon.url}#question=${id}` }]);
      hook.child.kill('SIGTERM');
      await hook.result;
    } finally {
      await writeFile(userConfigFile(), JSON.stringify(config(front.origin)));
      await daemon.waitForLog((entry) => entry.msg === CHANGED && entry.to === front.origin, 10_000, 'the public URL to come back');
    }
  });

  it('writes no capability anywhere: not in its log, its files or its history', async () => {
    expect(capabilities.length).toBeGreaterThanOrEqual(3);
    const { stdout, stderr } = daemon.output();
    const files = (await readdir(daemon.home, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
    expect(files).toContain(daemon.historyFile);
    // A file written atomically meanwhile leaves its temporary name gone: what it held is in the file it became.
    const read = (file: string) => readFile(file, 'latin1').catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? '' : Promise.reject(error)));
    const written = [stdout, stderr, ...(await Promise.all(files.map(read)))].join('\n');
    for (const capability of capabilities) expect(written).not.toContain(capability);
  });
});

describe.skipIf(!caddy.available)("ntfy's buttons, while one asker floods", () => {
  let floodFront: TlsFront;
  let floodNtfy: NtfyService;
  let floodDaemon: Daemon;
  const flooding: Array<ReturnType<typeof postAsHttpHook>> = [];

  beforeAll(async () => {
    floodFront = await prepareTlsFront();
    floodNtfy = await startNtfyService();
    floodDaemon = await startDaemon({ config: { waitSeconds: 600, publicUrl: floodFront.origin, notify: [{ ntfy: `${floodNtfy.origin}/askbridge-flood`, actions: true }] } });
    await floodFront.forwardTo(floodDaemon.port);
  }, 60_000);
  afterEach(killStrayProcesses);
  afterAll(async () => {
    for (const asked of flooding.splice(0)) asked.abort();
    await floodDaemon?.stop();
    await floodFront?.stop();
    await floodNtfy?.close();
  });

  /** A question of three options, tagged. */
  const threeOptions = (tag: string) => {
    const payload = freshPayload('01-single-select', tag);
    payload.tool_input.questions[0]!.options.push({ label: 'MySQL', description: '' });
    return payload;
  };
  /** Asked through the command hook (the token): the asker the flood must not reach. */
  async function askAsCommandHook(tag: string): Promise<{ hook: RunningProcess; message: NtfyMessage }> {
    const payload = threeOptions(tag);
    const hook = runHook(payload, floodDaemon.env);
    const { id } = await floodDaemon.waitForAsk(payload.tool_use_id);
    return { hook, message: await floodNtfy.waitFor((told) => told.click.endsWith(`#question=${id}`)) };
  }
  const kinds = (message: NtfyMessage) => message.actions?.map((action) => action.action);

  it("leaves another asker's earlier buttons working when one hook key asks more than every button there may be; past its share, its own get only Open", async () => {
    const earlier = await askAsCommandHook('before-the-flood');
    expect(kinds(earlier.message)).toEqual(['http', 'http', 'http']);

    // As many questions of three options as would take every capability there may be, and one more,
    // all waiting at once from one asker: Claude Code's http hook, with the hook key.
    const flood = MAX_CAPABILITIES / ONE_TAP_OPTIONS + 1;
    expect(flood).toBeLessThanOrEqual(shareOf(MAX_PENDING, 'asker'));
    for (let index = 0; index < flood; index++) {
      const asked = postAsHttpHook({ port: floodDaemon.port, key: floodDaemon.hookKey(), payload: threeOptions(`flood-${index}`) });
      // Each waits until the test ends, when it is cut.
      asked.response.catch(() => undefined);
      flooding.push(asked);
    }
    const told = await waitUntil(() => (floodNtfy.messages().length === 1 + flood ? floodNtfy.messages().slice(1) : undefined), 150_000, 'a message for every flooded question', 500);
    const withButtons = told.filter((message) => kinds(message)?.[0] === 'http');
    expect(withButtons).toHaveLength(Math.floor(shareOf(MAX_CAPABILITIES, 'asker') / ONE_TAP_OPTIONS));
    for (const message of told.filter((each) => !withButtons.includes(each))) expect(kinds(message)).toEqual(['view']);

    // The earlier question's button answers it, as ntfy, and that asker's next question still gets buttons.
    const tapped = await floodNtfy.perform(earlier.message.actions![1]!, { ca: floodFront.ca });
    expect(tapped.status, tapped.body).toBe(200);
    expect(JSON.parse(tapped.body)).toEqual({ answered: true, label: 'SQLite' });
    expect((await earlier.hook.result).code).toBe(0);
    const after = await askAsCommandHook('after-the-flood');
    expect(kinds(after.message)).toEqual(['http', 'http', 'http']);
    after.hook.child.kill('SIGTERM');
    await after.hook.result;
  }, 240_000);
});
