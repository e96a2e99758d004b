// Revoking a device on a full disk (a real, tiny tmpfs under the state directory), with a real daemon
// restarted on the same state directory: a revoke that cannot be saved is refused (503, and
// `askbridge devices --revoke` fails) and the device stays paired, before and after a restart; once
// there is room, the revoke holds, and the device never comes back after a restart. A pairing on
// the full disk is refused the same way and leaves no device behind, and so is turning pushes off:
// the device keeps its subscription rather than have it come back after a restart.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { newPairingUrl } from '../stack/browser.js';
import { pairOverHttp, type PageClient } from '../stack/page-client.js';
import { killStrayProcesses, parseJson, runCli } from '../stack/processes.js';
import { newSubscriptionKeys } from '../stack/push-service.js';
import { mountSmallDisk } from '../stack/small-disk.js';

const disk = mountSmallDisk('2m', 'revoke-disk-full');
const onDisk = disk.path ? it : it.skip;

let daemon: Daemon;
beforeAll(() => {
  if (disk.path) mkdirSync(join(disk.path, 'state'), { mode: 0o700 });
});
afterEach(killStrayProcesses);
afterAll(async () => {
  await daemon?.stop();
  disk.unmount();
});

type Device = { id: string; name: string };
const devicesOf = async (running: Daemon) => parseJson<Device[]>((await runCli(['devices', '--json'], running.env)).stdout, 'devices');
/** Whether the page's cookie and key still open its session (200), or are refused (401). */
const sessionStatus = async (page: PageClient) => (await page.request('GET', '/api/session')).status;
const subscribed = async (page: PageClient) => (await page.request<{ subscribed: boolean }>('GET', '/api/push')).body.subscribed;
/** The device a page is, as the daemon lists it for that page. */
async function deviceIdOf(page: PageClient): Promise<string> {
  const { body } = await page.request<{ devices: Array<Device & { current: boolean }> }>('GET', '/api/devices');
  return body.devices.find((device) => device.current)!.id;
}

/** `askbridge stop`, then a new daemon on the same state directory and port (a page's cookie names its port). */
async function restart(running: Daemon): Promise<Daemon> {
  running.expectExit();
  const stopped = await runCli(['stop'], running.env);
  expect(stopped.code, stopped.stderr).toBe(0);
  await running.exited;
  return startDaemon({ home: running.home, env: { ASKBRIDGE_PORT: String(running.port) } });
}

/** Two paired pages, kept from one test to the next: the laptop revokes the phone. */
let laptop: PageClient;
let phone: PageClient;
let phoneId: string;

onDisk('refuses a revoke it cannot save, and the device stays paired, across a restart too', async () => {
  daemon = await startDaemon({ home: join(disk.path!, 'state') });
  laptop = await pairOverHttp(daemon);
  phone = await pairOverHttp(daemon);
  phoneId = await deviceIdOf(phone);
  // At a real push service's address: no question is asked here, so nothing is ever sent there.
  const subscription = { endpoint: 'https://fcm.googleapis.com/fcm/send/revoke-disk-full', expirationTime: null, keys: newSubscriptionKeys().json };
  expect((await phone.request('POST', '/api/push/subscription', subscription)).status).toBe(200);

  const filler = disk.fillUp();
  // From the command line: refused, says why, exits non-zero.
  const refused = await runCli(['devices', '--revoke', phoneId], daemon.env);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(/not revoked: the device list could not be saved \(ENOSPC\), so the device is still paired/);
  // From another paired page (the Devices panel): the same 503, with the reason.
  const fromPage = await laptop.request<{ error: { code: string; message: string } }>('POST', `/api/devices/${phoneId}/revoke`, {});
  expect(fromPage.status).toBe(503);
  expect(fromPage.body.error).toMatchObject({ code: 'revoke_not_saved', message: expect.stringContaining('ENOSPC') });
  // Still paired in memory: the phone's cookie and key still work, and the list still shows it.
  expect(await sessionStatus(phone)).toBe(200);
  expect((await devicesOf(daemon)).map((device) => device.id)).toContain(phoneId);
  // Turning pushes off is refused the same way: the phone stays subscribed.
  const unsubscribe = await phone.request<{ error: { code: string; message: string } }>('DELETE', '/api/push/subscription');
  expect(unsubscribe.status).toBe(503);
  expect(unsubscribe.body.error).toMatchObject({ code: 'push_not_saved', message: expect.stringContaining('ENOSPC') });
  expect(await subscribed(phone)).toBe(true);

  // A pairing on the full disk is refused too, and leaves no device behind.
  const code = new URL(await newPairingUrl(daemon)).hash.slice('#pair='.length);
  const origin = daemon.url.replace(/\/$/, '');
  const pairing = await fetch(`${origin}/api/pair`, { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: JSON.stringify({ code }) });
  expect(pairing.status).toBe(503);
  expect(pairing.headers.get('set-cookie')).toBeNull();
  expect(await devicesOf(daemon)).toHaveLength(2);

  // And on disk: after a restart, memory and disk agree: the phone is still paired.
  rmSync(filler);
  daemon = await restart(daemon);
  expect(await sessionStatus(phone)).toBe(200);
  expect(await subscribed(phone)).toBe(true);
  expect((await devicesOf(daemon)).map((device) => device.id).sort()).toEqual([phoneId, await deviceIdOf(laptop)].sort());
});

onDisk('with room, a revoke holds at once and after a restart', async () => {
  const revoked = await runCli(['devices', '--revoke', phoneId], daemon.env);
  expect(revoked.code, revoked.stderr).toBe(0);
  expect(await sessionStatus(phone)).toBe(401);
  expect((await devicesOf(daemon)).map((device) => device.id)).not.toContain(phoneId);
  daemon = await restart(daemon);
  expect(await sessionStatus(phone)).toBe(401);
  expect(await sessionStatus(laptop)).toBe(200);
  expect((await devicesOf(daemon)).map((device) => device.id)).not.toContain(phoneId);
});
