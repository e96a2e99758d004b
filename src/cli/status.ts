// `askbridge status`: is the daemon running, and if it cannot be used, why: nothing there (and why
// the last keeper gave up, if it did), askbridge's keeper whose daemon keeps failing, an askbridge
// that refuses this state directory's token, or a program on its port that is not askbridge.
import { parseArgs } from 'node:util';
import type { StatusReply, TelegramPolling } from '../protocol.js';
import { describeCrashes, describeGaveUp } from '../daemon/lock.js';
import { openStateDir, resolveStateDir } from '../state-dir.js';
import { askbridgeCommand } from '../command-name.js';
import { connectToDaemon, DaemonUnreachable } from './client.js';
import type { CommandIo } from './command.js';
import { awayLines } from './turn-end-text.js';

/** How `status` and `doctor` say which daemon polls the Telegram bot (kept here, not in protocol.ts: `status` loads no zod). */
export const TELEGRAM_POLLING_WORDS: Record<TelegramPolling, string> = { polling_here: 'polling here', polled_elsewhere: 'polled by another daemon', waiting_for_store: 'waiting for the shared store' };

export async function run(io: CommandIo): Promise<number> {
  const { values } = parseArgs({ args: io.argv, options: { json: { type: 'boolean', default: false } }, strict: true });
  const stateDir = openStateDir(resolveStateDir(io.env));
  let status: StatusReply;
  try {
    const response = await connectToDaemon(io.env).request('GET', '/api/status');
    if (response.status !== 200) throw new DaemonUnreachable('not-askbridge', `the daemon answered ${response.status} to a status request`);
    // Not checked with zod, which would triple this command's start-up; the daemon proved it is askbridge.
    status = response.body as StatusReply;
  } catch (error) {
    if (!(error instanceof DaemonUnreachable)) throw error;
    // The keeper's record of why its daemons ended, or why the last keeper stopped trying.
    const keeper = error.state === 'not-serving' ? stateDir.readDaemonInfo() : undefined;
    const gaveUp = error.state === 'not-running' ? stateDir.readGaveUp() : undefined;
    if (values.json) {
      const facts = keeper ? { keeperPid: keeper.pid, port: keeper.port, crashes: keeper.crashes ?? 0, lastCrash: keeper.lastCrash, restartAt: keeper.restartAt } : {};
      io.stdout(`${JSON.stringify({ running: false, state: error.state, reason: error.message, ...facts, ...(gaveUp ? { gaveUp } : {}) })}\n`);
    } else io.stdout(`${error.message}\n${gaveUp ? `${describeGaveUp(gaveUp)}\n` : ''}`);
    return 1;
  }
  // `pid` is the keeper, which holds the port; the daemon process it runs (a crash replaces it) is in daemon.json.
  const info = stateDir.readDaemonInfo();
  const keeper = info?.pid === status.pid ? { daemonPid: info.daemonPid, portHeldBy: info.portHeldBy, crashes: info.crashes ?? 0, lastCrash: info.lastCrash } : undefined;
  if (values.json) io.stdout(`${JSON.stringify({ running: true, ...status, ...keeper })}\n`);
  else {
    const daemonProcess = keeper?.daemonPid === undefined ? '' : ` (daemon pid ${keeper.daemonPid}; the port is held by ${keeper.portHeldBy === 'service' ? 'systemd' : 'this pid'})`;
    io.stdout(`askbridge ${status.version} is running: pid ${status.pid}${daemonProcess}, ${status.url}\n${status.pending} pending question(s), ${status.watchers} page(s) or listener(s) connected, ${status.visiblePages} page(s) in view\n${awayLines(status, askbridgeCommand(io.env))}\n`);
    if (info && keeper?.crashes) io.stdout(`the keeper restarted the daemon: ${describeCrashes(info)}\n`);
    if (status.store) io.stdout(status.store.reachable ? `shared store: ${status.store.where}, reachable\n` : `degraded: the shared store ${status.store.where} cannot be used since ${new Date(status.store.since).toISOString()}: ${status.store.reason ?? 'no reason given'}\n`);
    if (status.store?.telegram) io.stdout(`telegram: ${TELEGRAM_POLLING_WORDS[status.store.telegram]}\n`);
    const problem = status.history;
    if (status.audit) io.stdout(`degraded: the audit trail cannot be written (${status.audit.error}) since ${new Date(status.audit.since).toISOString()}; a person's decisions wait until it can\n`);
    if (problem) io.stdout(`degraded: history.jsonl cannot be written (${problem.error}) since ${new Date(problem.since).toISOString()}; answers are still delivered; ${problem.waiting} line(s) wait in memory${problem.lost ? `, ${problem.lost} lost` : ''}\n`);
  }
  return 0;
}
