import { parseArgs } from 'node:util';
import { connectToDaemon, type DaemonClient } from './client.js';
import type { CommandIo } from './main.js';

type Status = { pid: number; port: number; url: string; version: string; pending: number; watchers: number };

export async function run(io: CommandIo): Promise<number> {
  const { values } = parseArgs({ args: io.argv, options: { json: { type: 'boolean', default: false } }, strict: true });
  let status: Status | undefined;
  try {
    status = await fetchStatus(connectToDaemon(io.env));
  } catch {
    status = undefined;
  }
  if (values.json) {
    io.stdout(`${JSON.stringify(status ? { running: true, ...status } : { running: false })}\n`);
  } else if (status) {
    io.stdout(`askbridge ${status.version} is running: pid ${status.pid}, ${status.url}\n${status.pending} pending question(s), ${status.watchers} page(s) or listener(s) connected\n`);
  } else {
    io.stdout('askbridge is not running\n');
  }
  return status ? 0 : 1;
}

async function fetchStatus(daemon: DaemonClient): Promise<Status | undefined> {
  const response = await daemon.request<Status>('GET', '/api/status');
  return response.status === 200 ? response.body : undefined;
}
