// Whether askbridge's service holds the port an http hook posts to. The http hook sends the question
// and the hook key to whatever listens on 127.0.0.1:PORT and takes its reply as the answer, so it is
// safe only where nothing else can ever listen there: where askbridge.socket (`askbridge service
// install`) is active, lists exactly 127.0.0.1:PORT (and [::1]:PORT) for that very port, and the
// sockets listening there are this user's (systemd's user manager runs as the user). An active unit
// on another port proves nothing for this one; a keeper (`askbridge start`) on this port holds it
// only while it runs. `install` chooses the hook by it, and `doctor` reports the same.
import { execFile } from 'node:child_process';
import { endpoint, listenerUid, readTcpTable } from '../tcp-table.js';
import { SOCKET_UNIT } from './service.js';

/** What systemd says of askbridge.socket, and who listens on each address it lists. */
export type SocketUnitProbe = {
  /** `unknown`: no systemd user manager answered `systemctl --user`. */
  state: 'active' | 'inactive' | 'unknown';
  /**
   * Its `Listen=` entries as systemd writes them (`127.0.0.1:7433 (Stream)`), each with the uid of
   * the program listening there: null when nothing does, undefined when this system cannot say.
   */
  listens: Array<{ entry: string; listenerUid: number | null | undefined }>;
  /** This user's uid, which systemd's user manager and its sockets run as. */
  uid: number | undefined;
};

export type PortHold = { held: true } | { held: false; why: string };

/** How long systemctl may take to answer before the port counts as not held. */
const SYSTEMCTL_TIMEOUT_MS = 5_000;

/** Asks systemd about askbridge.socket, and this machine who listens where it says it listens. */
export function probeSocketUnit(env: NodeJS.ProcessEnv): Promise<SocketUnitProbe> {
  const uid = process.getuid?.();
  return new Promise((done) => {
    execFile('systemctl', ['--user', 'show', SOCKET_UNIT, '--property=ActiveState', '--property=Listen'], { env, timeout: SYSTEMCTL_TIMEOUT_MS, encoding: 'utf8' }, (error, stdout) => {
      if (error) return done({ state: 'unknown', listens: [], uid });
      const lines = stdout.split('\n');
      const state = lines.includes('ActiveState=active') ? 'active' : 'inactive';
      const entries = lines.filter((line) => line.startsWith('Listen=')).map((line) => line.slice('Listen='.length).trim());
      const table = entries.length > 0 ? readTcpTable() : undefined;
      const listens = entries.map((entry) => {
        const stream = /^(.+) \(Stream\)$/.exec(entry);
        if (!stream || !table) return { entry, listenerUid: undefined };
        return { entry, listenerUid: listenerUid(table, stream[1]!) ?? null };
      });
      done({ state, listens, uid });
    });
  });
}

/** Whether the socket unit, as probed, holds 127.0.0.1:PORT for askbridge; if not, why, in a clause. */
export function serviceHold(probe: SocketUnitProbe, port: number): PortHold {
  if (probe.state === 'unknown') return { held: false, why: 'no systemd user manager answers `systemctl --user`' };
  if (probe.state !== 'active') return { held: false, why: `${SOCKET_UNIT} is not active` };
  const loopback = `${endpoint('127.0.0.1', port)} (Stream)`;
  const allowed = [loopback, `${endpoint('::1', port)} (Stream)`];
  const listed = probe.listens.map((listen) => listen.entry);
  if (!listed.includes(loopback)) return { held: false, why: `${SOCKET_UNIT} listens on ${listed.join(', ') || 'nothing'}, not on 127.0.0.1:${port}` };
  const extra = listed.filter((entry) => !allowed.includes(entry));
  if (extra.length > 0) return { held: false, why: `${SOCKET_UNIT} listens on ${extra.join(', ')} too, and askbridge takes only 127.0.0.1:${port} and [::1]:${port}` };
  for (const { entry, listenerUid: owner } of probe.listens) {
    const address = entry.replace(/ \(Stream\)$/, '');
    if (owner === undefined) return { held: false, why: `who listens on ${address} cannot be read here` };
    if (owner === null) return { held: false, why: `nothing listens on ${address}, though ${SOCKET_UNIT} is active` };
    if (owner !== probe.uid) return { held: false, why: `another user (uid ${owner}) listens on ${address}, not ${SOCKET_UNIT}` };
  }
  return { held: true };
}
