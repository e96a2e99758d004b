// Each person's own away switch and grants, end to end: the real daemon with people alice and bob
// (people.json), wired as a user wires Claude Code, and a real Chromium page paired for each. Their
// sessions name their person (a remote hook's `x-askbridge-person`), so each session's asks are its
// person's. Alice's Away switch holds her turn ends and never bob's; the grant alice makes from her
// page shows on her page only, bob's page cannot revoke it (404), and it allows alice's next request
// at once but never bob's, routed to him alone.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSION_HOOK_PATH, PERSON_HEADER } from '../../src/http-hook.js';
import type { AskView, Grant } from '../../src/protocol.js';
import { decisionOf, permissionPayload, type HeldPermission } from '../stack/approvals.js';
import { chromiumAvailability, launchBrowser, openAsk, openPairedPage, type PairedPage } from '../stack/browser.js';
import { waitUntil } from '../stack/clock.js';
import { startDaemon, type Daemon } from '../stack/daemon.js';
import { postAsHttpHook } from '../stack/hook-client.js';
import { pairingUrlFor } from '../stack/page-client.js';
import { runCli } from '../stack/processes.js';
import { continuationOf, endTurn, sendStop, stopPayload } from '../stack/turn-ends.js';

const chromium = chromiumAvailability();
if (!chromium.available && process.env.CI) throw new Error(`the answer page tests need Chromium: ${chromium.reason}`);

const ALLOW = { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } };

describe.skipIf(!chromium.available)("each person's own away switch and grants, in their pages", () => {
  let home: string;
  let project: string;
  let daemon: Daemon;
  let browser: Browser;
  let alice: PairedPage;
  let bob: PairedPage;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'askbridge-own-'));
    project = join(home, 'projects', 'shop');
    await writeFile(
      join(home, 'people.json'),
      JSON.stringify([
        { name: 'alice', groups: [], addedAt: 1 },
        { name: 'bob', groups: [], addedAt: 2 },
      ]),
    );
    daemon = await startDaemon({ home, wired: true, config: { whenNobodyWatching: 'wait', waitSeconds: 120 } });
    browser = await launchBrowser();
    alice = await openPairedPage(browser, daemon, { pairingUrl: await pairingUrlFor(daemon, 'alice') });
    bob = await openPairedPage(browser, daemon, { pairingUrl: await pairingUrlFor(daemon, 'bob') });
  }, 60_000);

  afterAll(async () => {
    await alice?.context.close();
    await bob?.context.close();
    await browser?.close();
    await daemon?.stop();
    await rm(home, { recursive: true, force: true });
  });

  /** A session of `person`'s (its hook names them). */
  const as = (person: string) => ({ [PERSON_HEADER]: person });

  /** A PermissionRequest of `person`'s session, held open until decided; resolves once it is pending. */
  async function requestAs(person: string, sessionId: string): Promise<HeldPermission> {
    const payload = permissionPayload(sessionId, 'Bash', { command: 'npm test', description: 'Run the tests' }, { cwd: project });
    const sent = postAsHttpHook({ port: daemon.port, key: daemon.hookKey(), payload, headers: as(person), path: PERMISSION_HOOK_PATH });
    sent.response.catch(() => {});
    const view = await Promise.race([
      waitUntil(async () => (await daemon.pending()).find((ask) => ask.sessionId === sessionId && ask.approval !== undefined), 10_000, `the approval of ${person}'s session ${sessionId} to be pending`),
      sent.response.then((early) => {
        throw new Error(`the permission hook was answered before it waited: ${early.statusCode} ${early.body.slice(0, 300)}`);
      }),
    ]);
    return { payload, response: sent.response, view, abort: sent.abort };
  }

  /** What a page's own credentials get when it asks to revoke a grant (its key, from its own storage). */
  const revokeFrom = (page: Page, id: string) =>
    page.evaluate(async (grant) => (await fetch(`/api/grants/${grant}/revoke`, { method: 'POST', headers: { 'x-askbridge-key': localStorage.getItem('askbridge.pageKey') ?? '' } })).status, id);

  it("alice's Away switch holds her turn ends, never bob's; bob's page stays not away", async () => {
    const alicesSwitch = alice.page.getByRole('switch', { name: 'Away' });
    const bobsSwitch = bob.page.getByRole('switch', { name: 'Away' });
    await expect.poll(() => alicesSwitch.isEnabled()).toBe(true);
    await alicesSwitch.click();
    await expect.poll(() => alicesSwitch.getAttribute('aria-checked')).toBe('true');
    expect((await daemon.api<{ away: boolean; awayPeople: string[] }>('GET', '/api/away')).body).toMatchObject({ away: false, awayPeople: ['alice'] });
    expect(await bobsSwitch.getAttribute('aria-checked')).toBe('false');

    // Bob's turn ends at once: Claude stops in his terminal, as it does with nobody away.
    const bobs = sendStop(daemon, stopPayload('bob-session', 'Done for bob.', { cwd: project }), undefined, as('bob'));
    expect(await continuationOf(bobs)).toBeNull();
    // Alice's waits for her reply, on her page.
    const alices = await endTurn(daemon, stopPayload('alice-session', 'Done for alice.', { cwd: project }), undefined, as('alice'));
    expect(alices.view.route).toEqual({ people: ['alice'], approvals: 1 });
    await openAsk(alice.page, alices.view.id);
    expect(await bob.page.locator(`[data-ask-id="${alices.view.id}"]`).count()).toBe(0);
    expect(await bobsSwitch.getAttribute('aria-checked')).toBe('false');

    // Back: her turn's end is let go, and Claude stops.
    await alicesSwitch.click();
    await expect.poll(() => alicesSwitch.getAttribute('aria-checked')).toBe('false');
    expect(await continuationOf(alices)).toBeNull();
  }, 60_000);

  it("alice's grant shows on her page only, bob's page cannot revoke it, and it never allows bob's request", async () => {
    const first = await requestAs('alice', 'alice-1');
    const card = await openAsk(alice.page, first.view.id);
    const offer = card.locator('.approval-grant');
    await offer.getByLabel('For').selectOption('60');
    await offer.getByLabel('In').selectOption('project');
    await offer.getByRole('button', { name: 'Allow, and the same without asking' }).click();
    expect(await decisionOf(first)).toEqual(ALLOW);
    const [grant] = (await daemon.api<{ grants: Grant[] }>('GET', '/api/grants')).body.grants;
    expect(grant).toMatchObject({ rule: 'Bash(npm test:*)', scope: 'project', person: 'alice' });

    // Her page lists it; bob's does not, and his revoke finds nothing.
    await alice.page.locator(`#grants [data-grant="${grant!.id}"]`).waitFor({ state: 'visible' });
    expect(await bob.page.locator('#grants [data-grant]').count()).toBe(0);
    expect(await bob.page.locator('#grants').isVisible()).toBe(false);
    expect(await revokeFrom(bob.page, grant!.id)).toBe(404);
    expect((await daemon.api<{ grants: Grant[] }>('GET', '/api/grants')).body.grants.map((live) => live.id)).toEqual([grant!.id]);

    // Alice's next request in the project is allowed at once; bob's, routed to him alone, waits for him.
    const alicesAgain = postAsHttpHook({ port: daemon.port, key: daemon.hookKey(), payload: permissionPayload('alice-2', 'Bash', { command: 'npm test' }, { cwd: project }), headers: as('alice'), path: PERMISSION_HOOK_PATH });
    const again = await alicesAgain.response;
    expect(JSON.parse(again.body)).toEqual(ALLOW);
    const bobs = await requestAs('bob', 'bob-1');
    expect(bobs.view).toMatchObject({ status: 'pending', route: { people: ['bob'], approvals: 1 } } satisfies Partial<AskView>);
    await openAsk(bob.page, bobs.view.id);
    bobs.abort();
    await waitUntil(async () => (await daemon.pending()).length === 0 || undefined, 10_000, 'bob’s request to be withdrawn');
  }, 60_000);

  it('a person removed leaves nothing behind: their grants end and they are no longer away', async () => {
    const alicesSwitch = alice.page.getByRole('switch', { name: 'Away' });
    await alicesSwitch.click();
    await expect.poll(() => alicesSwitch.getAttribute('aria-checked')).toBe('true');
    expect((await daemon.api<{ grants: Grant[] }>('GET', '/api/grants')).body.grants.map((grant) => grant.person)).toEqual(['alice']);

    expect((await runCli(['people', 'remove', 'alice'], daemon.env)).code).toBe(0);
    expect((await daemon.api<{ grants: Grant[] }>('GET', '/api/grants')).body.grants).toEqual([]);
    expect((await daemon.api<{ away: boolean; awayPeople?: string[] }>('GET', '/api/away')).body.awayPeople).toBeUndefined();
  }, 60_000);
});
