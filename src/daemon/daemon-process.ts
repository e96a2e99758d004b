// The daemon process's entry: the keeper (keeper.ts) forks this file with its options as the one
// argument, and hands it connections over the IPC channel.
import { runDaemonChild } from './main.js';
import type { DaemonChildOptions } from './keeper.js';

const options = JSON.parse(process.argv[2] ?? '{}') as DaemonChildOptions;
// stdout and stderr are the keeper's, maybe a pipe whose reader has gone (`askbridge start | tee
// log`, ended): a write there fails (EPIPE) and what it said is lost. That is no reason to crash, and
// no reason not to stop when told (the log drops its lines itself: logger.ts).
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
await runDaemonChild({
  env: process.env,
  // A restarted daemon's link would pair one more browser, unasked: the pages stay paired.
  print: options.restarted ? () => {} : (line) => process.stdout.write(`${line}\n`),
  port: options.port,
  keeperPid: options.keeperPid,
  portHeldBy: options.portHeldBy,
  holdsIpv6: options.holdsIpv6,
  logToFile: options.logToFile,
  publicUrl: options.publicUrl,
  listen: options.listen,
  crashes: options.crashes,
  lastCrash: options.lastCrash,
});
