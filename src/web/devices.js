// @ts-check
// The paired devices, from the page: each browser and Telegram chat by name with when it was last
// seen, revoked with one click (a browser's pages are disconnected at once; a chat is ignored from
// then on), and a QR code that pairs one more browser: a phone scans it.
// A pairing link pairs one browser, once, within ten minutes: once it has paired one (a device the
// list did not hold when the link was made appears) or its time is up, it leaves the panel, so that
// nobody scans a link that pairs nothing.
import { createPairing, errorMessage, listDevices, PAIRING_CODE_TTL_MS, revokeDevice } from './api.js';
import { byId, h, togglePanel } from './dom.js';

const SVG = 'http://www.w3.org/2000/svg';
/** White modules around a QR code, as scanners expect (four by the standard). */
const QUIET_ZONE = 4;
/** While a pairing link shows, the device list is read this often, to see the browser it pairs. */
const WATCH_PAIRING_MS = 2000;

/** @typedef {import('../protocol.js').DevicesReply['devices'][number]} Device */

const ui = {
  toggle: /** @type {HTMLButtonElement} */ (byId('devices-toggle')),
  panel: byId('devices'),
  list: byId('devices-list'),
  pair: /** @type {HTMLButtonElement} */ (byId('pair-device')),
  pairBox: byId('pair-box'),
};

/**
 * The pairing link on show: the devices paired before it was made (null: unknown, so none can tell
 * that it was used), and its timers.
 * @type {{ before: Set<string> | null; expiry: number; watch: number } | null}
 */
let live = null;

/** The Devices panel (its button in the top bar opens it). */
export function initDevices() {
  const panel = togglePanel(ui.toggle, ui.panel, { onOpen: () => void refresh() });
  ui.pair.addEventListener('click', () => void showPairing());
  return panel;
}

/** Reads the paired devices and lists them; a device the shown link did not know means it paired one. */
async function refresh() {
  const result = await listDevices();
  const devices = result.ok ? result.data.devices : [];
  ui.list.replaceChildren(
    ...devices.map((device) =>
      h(
        'li',
        { class: 'device', 'data-device-id': device.id },
        h(
          'span',
          { class: 'device-text' },
          h('span', { class: 'device-name', text: device.name }),
          h('span', { class: 'device-seen', text: device.current ? 'this browser' : `${device.kind === 'telegram' ? 'Telegram chat' : 'browser'}, last seen ${ago(device.lastSeen)}` }),
        ),
        revokeButton(device),
      ),
    ),
  );
  const before = live?.before;
  const paired = result.ok && before ? devices.find((device) => !before.has(device.id)) : undefined;
  if (paired) endPairing(`${paired.name} is paired. That link is spent: it pairs nothing more.`);
}

/** @param {Device} device */
function revokeButton(device) {
  const button = h('button', { type: 'button', class: 'btn btn-quiet', text: device.current ? 'Unpair' : 'Revoke', 'aria-label': `${device.current ? 'Unpair this browser' : 'Revoke'} ${device.name}` });
  button.addEventListener('click', async () => {
    button.disabled = true;
    const result = await revokeDevice(device.id);
    await refresh();
    // A revoke the daemon could not save is refused (the device stays paired): said, not hidden.
    if (!result.ok) ui.list.prepend(h('li', { class: 'device-problem', role: 'alert', text: `${device.name} is still paired: ${errorMessage(result, `the daemon answered ${result.status}`)}` }));
  });
  return button;
}

async function showPairing() {
  stopWatching();
  const known = await listDevices();
  const result = await createPairing();
  if (!result.ok) {
    ui.pairBox.replaceChildren(h('p', { class: 'pair-note', text: `No pairing link (HTTP ${result.status}).` }));
    ui.pairBox.hidden = false;
    return;
  }
  const { links, qr } = result.data;
  const link = links.public ?? links.local;
  // A QR code only of a link a phone can open: a loopback link works only on this computer.
  ui.pairBox.replaceChildren(
    ...(links.public ? [qrCode(qr, link)] : []),
    h('p', { class: 'pair-link' }, h('code', { text: link })),
    h(
      'p',
      { class: 'pair-note', text: links.public ? 'Scan it with the phone, or open the link: it pairs one browser, once, within ten minutes.' : 'This link works only on this computer: set a public URL to pair a phone (see "From your phone" in docs/remote.md).' },
    ),
  );
  ui.pairBox.hidden = false;
  live = {
    before: known.ok ? new Set(known.data.devices.map((device) => device.id)) : null,
    expiry: window.setTimeout(() => endPairing('That link has expired: it pairs nothing now.'), PAIRING_CODE_TTL_MS),
    watch: window.setTimeout(watchPairing, WATCH_PAIRING_MS),
  };
}

/** While the link shows in the open panel, the list is read again and again, to see the browser it pairs. */
async function watchPairing() {
  if (!live) return;
  if (!ui.panel.hidden) await refresh();
  if (live) live.watch = window.setTimeout(watchPairing, WATCH_PAIRING_MS);
}

function stopWatching() {
  if (!live) return;
  clearTimeout(live.expiry);
  clearTimeout(live.watch);
  live = null;
}

/**
 * The link shown pairs nothing more (it paired a browser, or its time is up): it leaves the panel, and says why.
 * @param {string} why
 */
function endPairing(why) {
  stopWatching();
  ui.pairBox.replaceChildren(h('p', { class: 'pair-note pair-spent', role: 'status', text: `${why} To pair another browser, make a new link.` }));
  ui.pairBox.hidden = false;
}

/**
 * The QR code the daemon encoded, drawn as one SVG path (rows of 0 and 1, dark = 1).
 * @param {string[]} rows
 * @param {string} link
 */
function qrCode(rows, link) {
  const size = rows.length + 2 * QUIET_ZONE;
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${size} ${size}`);
  svg.setAttribute('class', 'qr');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', `QR code of ${link}`);
  const background = document.createElementNS(SVG, 'rect');
  background.setAttribute('width', String(size));
  background.setAttribute('height', String(size));
  background.setAttribute('fill', '#fff');
  const modules = document.createElementNS(SVG, 'path');
  let d = '';
  rows.forEach((row, y) => {
    for (let x = 0; x < row.length; x++) if (row[x] === '1') d += `M${x + QUIET_ZONE} ${y + QUIET_ZONE}h1v1h-1z`;
  });
  modules.setAttribute('d', d);
  modules.setAttribute('fill', '#000');
  svg.append(background, modules);
  return svg;
}

/** @param {number} at */
function ago(at) {
  if (at === 0) return 'before askbridge kept track';
  const minutes = Math.round((Date.now() - at) / 60_000);
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} min ago`;
  if (minutes < 48 * 60) return `${Math.round(minutes / 60)} h ago`;
  return new Date(at).toLocaleDateString();
}
