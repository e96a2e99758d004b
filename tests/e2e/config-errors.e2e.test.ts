// A user config that is not JSON, as the running daemon reports it: its log line and the banner
// every page shows name the line and column where the file goes wrong, never a character offset.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { listenAsProgram } from '../stack/live-feed.js';

let daemon: Daemon | undefined;
afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
});

describe('a user config that is not JSON, in the running daemon', () => {
  it('is logged, and shown in the banner, at its line and column', async () => {
    const home = mkdtempSync(join(tmpdir(), 'askbridge-e2e-'));
    const file = join(home, 'xdg-config', 'askbridge', 'config.json');
    mkdirSync(join(home, 'xdg-config', 'askbridge'), { recursive: true });
    writeFileSync(file, '{\n  "waitSeconds": 60\n  "onTimeout": "decline"\n}\n');
    daemon = await startDaemon({ home, defaults: true }); // the file as written, nothing over it
    const expected = `${file}: not valid JSON at line 3, column 3: Expected ',' or '}' after property value`;

    const logged = await daemon.waitForLog((entry) => entry.msg === 'config file is invalid: keeping its last good version', 10_000, 'the broken config to be logged');
    expect(logged).toMatchObject({ path: file, error: expected });

    const feed = await listenAsProgram(daemon);
    try {
      await feed.waitFor((messages) => messages.some((message) => message.type === 'banner' && message.message !== null));
      const banner = feed.messages.find((message) => message.type === 'banner' && message.message !== null);
      expect(banner).toEqual({ type: 'banner', message: `Configuration error, the last good configuration stays in use: ${expected}` });
    } finally {
      feed.socket.close();
    }
  });
});
