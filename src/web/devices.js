// @ts-check
// The paired devices, from the page: each browser by name with when it was last seen, revoked with one
// click (its pages are disconnected at once), and a QR code that pairs one more: a phone scans it.
import { createPairing, errorMessage, listDevices, revokeDevice } from './api.js';
import { byId, h } from './dom.js';

const SVG = 'http://www.w3.org/2000/svg';
/** White modules around a QR code, as scanners expect (four by the standard). */
const QUIET_ZONE = 4;

/** @typedef {import('../protocol.js').DevicesReply['devices'][number]} Device */

const ui = {
  toggle: /** @type {HTMLButtonElement} */ (byId('devices-toggle')),
  panel: byId('devices'),
  list: byId('devices-list'),
  pair: /** @type {HTMLButtonElement} */ (byId('pair-device')),
  pairBox: byId('pair-box'),
};

export function initDevices() {
  ui.toggle.addEventListener('click', () => {
    const open = ui.panel.hidden;
    ui.panel.hidden = !open;
    ui.toggle.setAttribute('aria-expanded', String(open));
    if (open) void refresh();
  });
  ui.pair.addEventListener('click', () => void showPairing());
}

async function refresh() {
  const result = await listDevices();
  const devices = result.ok ? result.data.devices : [];
  ui.list.replaceChildren(
    ...devices.map((device) =>
      h(
        'li',
        { class: 'device', 'data-device-id': device.id },
        h('span', { class: 'device-text' }, h('span', { class: 'device-name', text: device.name }), h('span', { class: 'device-seen', text: device.current ? 'this browser' : `last seen ${ago(device.lastSeen)}` })),
        revokeButton(device),
      ),
    ),
  );
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
  const result = await createPairing();
  if (!result.ok) {
    ui.pairBox.replaceChildren(h('p', { class: 'pair-note', text: `No pairing link (HTTP ${result.status}).` }));
    ui.pairBox.hidden = false;
    return;
  }
  const { links, qr } = result.data;
  const link = links.public ?? links.local;
  ui.pairBox.replaceChildren(
    qrCode(qr, link),
    h('p', { class: 'pair-link' }, h('code', { text: link })),
    h(
      'p',
      { class: 'pair-note', text: links.public ? 'Scan it with the phone, or open the link: it pairs one browser, once, within ten minutes.' : 'This link works only on this computer: set a public URL to pair a phone (README: "From your phone").' },
    ),
  );
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
