// `askbridge service install|uninstall|status`: let the service manager hold the daemon's port. On
// Linux with a systemd user manager, askbridge.socket listens on 127.0.0.1:PORT and [::1]:PORT
// and passes the sockets to askbridge.service (`askbridge start --log-file`), so the port stays
// held even while askbridge itself is down or restarting (Restart=on-failure), and nothing else
// can take it. The unit names are a contract: `install` and `doctor` ask systemd about
// askbridge.socket (service-hold.ts).
// macOS: launchd passes sockets only through launch_activate_socket, a native call Node cannot
// make, so there the keeper (`askbridge start`) holds the port and nothing is installed.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { askbridgeCommand, CLI_PATH } from '../command-name.js';
import { makeFolders } from '../folders.js';
import { configuredPort, isProcessAlive, openStateDir, resolveStateDir, writeFileAtomic } from '../state-dir.js';
import { CliError, type CommandIo } from './command.js';

export const SOCKET_UNIT = 'askbridge.socket';
export const SERVICE_UNIT = 'askbridge.service';

/** `$XDG_CONFIG_HOME/systemd/user`, else `~/.config/systemd/user`: where a user's own units live. */
function userUnitDir(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config'), 'systemd', 'user');
}

function systemctl(args: string[]): { ok: boolean; output: string } {
  const result = spawnSync('systemctl', ['--user', ...args], { encoding: 'utf8' });
  return { ok: result.status === 0, output: `${result.stdout ?? ''}${result.stderr ?? ''}`.trim() || (result.error?.message ?? '') };
}

/** Why there is no systemd user manager to install into, or undefined when there is one. */
function noUserManager(command: string): string | undefined {
  if (process.platform === 'darwin') {
    return `on macOS, launchd hands sockets over only through a native call (launch_activate_socket) that Node cannot make: the keeper (\`${command} start\`) holds the port there, and there is nothing to install`;
  }
  if (process.platform !== 'linux') return `there is no service manager askbridge can use on ${process.platform}: the keeper (\`${command} start\`) holds the port`;
  const probe = systemctl(['show', '--property=Version']);
  if (!probe.ok || !/^Version=\S/m.test(probe.output)) {
    return `no systemd user manager runs here (systemctl --user: ${probe.output.split('\n')[0] || 'no answer'}): the keeper (\`${command} start\`) holds the port; nothing was written`;
  }
  return undefined;
}

/** A value in a unit file: quoted for systemd's command-line and assignment parsing, its specifiers escaped. */
function unitQuote(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%').replace(/\$/g, '$$$$')}"`;
}

export function socketUnit(port: number, ipv6: boolean): string {
  return [
    '[Unit]',
    "Description=askbridge's port, held while askbridge is down or restarting",
    '',
    '[Socket]',
    `ListenStream=127.0.0.1:${port}`,
    ...(ipv6 ? [`ListenStream=[::1]:${port}`, 'BindIPv6Only=ipv6-only'] : []),
    'FileDescriptorName=askbridge',
    '',
    '[Install]',
    'WantedBy=sockets.target',
    '',
  ].join('\n');
}

/** The service: this checkout's askbridge under this Node, by absolute paths. Never a secret: the state directory holds those. */
export function serviceUnit(env: NodeJS.ProcessEnv): string {
  return [
    '[Unit]',
    'Description=askbridge: answer Claude Code questions from a browser',
    `Requires=${SOCKET_UNIT}`,
    `After=${SOCKET_UNIT}`,
    '',
    '[Service]',
    `ExecStart=${unitQuote(process.execPath)} ${unitQuote(CLI_PATH)} start --log-file`,
    ...(env.ASKBRIDGE_HOME ? [`Environment=${unitQuote(`ASKBRIDGE_HOME=${env.ASKBRIDGE_HOME}`)}`] : []),
    'Restart=on-failure',
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n');
}

function hasIpv6Loopback(): boolean {
  // Whether [::1] exists here: without it, a ListenStream on it would fail the socket unit.
  const probe = spawnSync(process.execPath, ['-e', "require('node:net').createServer().listen({host:'::1',port:0,ipv6Only:true},function(){this.close()}).on('error',()=>process.exit(1))"]);
  return probe.status === 0;
}

export async function run(io: CommandIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: io.argv, options: { port: { type: 'string' } }, allowPositionals: true, strict: true });
  const [action, ...extra] = positionals;
  if (extra.length > 0 || !action || !['install', 'uninstall', 'status'].includes(action)) throw new CliError(`usage: ${askbridgeCommand(io.env)} service install|uninstall|status [--port N]`, 2);
  const dir = userUnitDir(io.env);
  const paths = { socket: join(dir, SOCKET_UNIT), service: join(dir, SERVICE_UNIT) };

  if (action === 'status') {
    const installed = existsSync(paths.socket) && existsSync(paths.service);
    io.stdout(`${installed ? `installed: ${paths.socket}, ${paths.service}` : 'not installed'}\n`);
    const why = noUserManager(askbridgeCommand(io.env));
    if (why) {
      io.stdout(`${why}\n`);
      return installed ? 0 : 1;
    }
    for (const unit of [SOCKET_UNIT, SERVICE_UNIT]) io.stdout(`${unit}: ${systemctl(['is-active', unit]).output || 'unknown'}\n`);
    return installed ? 0 : 1;
  }

  if (action === 'uninstall') {
    const why = noUserManager(askbridgeCommand(io.env));
    if (!why) systemctl(['disable', '--now', SOCKET_UNIT, SERVICE_UNIT]);
    const removed = [paths.socket, paths.service].filter((path) => existsSync(path));
    for (const path of removed) rmSync(path, { force: true });
    if (!why && removed.length > 0) systemctl(['daemon-reload']);
    io.stderr(removed.length > 0 ? `removed ${removed.join(', ')}\n` : 'askbridge is not installed as a service\n');
    return 0;
  }

  const why = noUserManager(askbridgeCommand(io.env));
  if (why) throw new CliError(why);
  const port = configuredPort(io.env, values.port === undefined ? undefined : Number(values.port));
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new CliError(`invalid port "${port}": a service needs a fixed port, 1-65535`, 2);
  // A daemon its keeper runs holds the port now: the socket unit could not bind it.
  const info = openStateDir(resolveStateDir(io.env)).readDaemonInfo();
  if (info && info.portHeldBy !== 'service' && isProcessAlive(info.pid)) {
    throw new CliError(`askbridge runs already (pid ${info.pid}) and holds port ${info.port}: run \`${askbridgeCommand(io.env)} stop\` first, then \`${askbridgeCommand(io.env)} service install\` again`);
  }
  makeFolders(dir, 0o700);
  const socket = socketUnit(port, hasIpv6Loopback());
  const service = serviceUnit(io.env);
  const unchanged = existsSync(paths.socket) && readFileSync(paths.socket, 'utf8') === socket && existsSync(paths.service) && readFileSync(paths.service, 'utf8') === service;
  if (!unchanged) {
    writeFileAtomic(paths.socket, socket);
    writeFileAtomic(paths.service, service);
  }
  for (const step of [['daemon-reload'], ['enable', '--now', SOCKET_UNIT, SERVICE_UNIT]]) {
    const result = systemctl(step);
    if (!result.ok) throw new CliError(`systemctl --user ${step.join(' ')} failed: ${result.output.split('\n')[0]}`);
  }
  io.stderr(`askbridge is a service now: systemd holds 127.0.0.1:${port} (${paths.socket}) and runs askbridge on it (${paths.service})\n`);
  return 0;
}
