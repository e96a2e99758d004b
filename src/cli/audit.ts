// `askbridge audit verify|export`: the audit trail (audit-file.ts, docs/audit.md), read straight from
// the state directory, with or without the daemon. `verify` checks every line and the head and names
// the first broken line (exit 1); `export` writes the lines of a time range as JSON lines (each
// exactly as in the trail, so its MAC still checks) or as CSV.
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { auditCsv } from '../audit-csv.js';
import type { Client } from 'pg';
import { createTrailCheck, fileLines, macMatches, parseAuditKey, readAuditLine, trailIdOf, verifyAuditTrail, type AuditLine, type BrokenLine } from '../audit-file.js';
import { connectClient, StoreConnectError } from '../store/connect.js';
import { storeAuditLines, storeAuditTrails, storeTrailLines } from '../store/records.js';
import { chooseStore } from '../store/setting.js';
import { askbridgeCommand } from '../command-name.js';
import { openStateDir, resolveStateDir } from '../state-dir.js';
import { escapeInvisibleInJson, terminalText } from '../visible-text.js';
import { CliError, type CommandIo } from './command.js';

export async function run(io: CommandIo): Promise<number> {
  const [action, ...rest] = io.argv;
  const command = askbridgeCommand(io.env);
  const paths = openStateDir(resolveStateDir(io.env)).paths;
  /** The trail: --file, which must exist, else the state directory's (none yet: nothing was recorded). */
  const trailOf = (file: string | undefined) => {
    if (file !== undefined && !existsSync(file)) throw new CliError(`there is no file ${terminalText(file)}`, 2);
    return file ?? paths.audit;
  };
  if (action === 'verify') {
    const { values } = parseArgs({ args: rest, strict: true, options: { file: { type: 'string' }, local: { type: 'boolean', default: false } } });
    const files = { trail: trailOf(values.file), head: paths.auditHead, key: paths.auditKey };
    const key = readKey(files.key);
    const local = verify(io, files, key);
    const store = values.local ? undefined : await openStore(io, 'verify');
    if (!store) return local;
    try {
      return (await verifyStore(io, store, files.trail, key)) === 0 ? local : 1;
    } finally {
      await store.end().catch(() => undefined);
    }
  }
  if (action === 'export') {
    const { values } = parseArgs({ args: rest, strict: true, options: { file: { type: 'string' }, since: { type: 'string' }, until: { type: 'string' }, format: { type: 'string', default: 'json' }, local: { type: 'boolean', default: false } } });
    if (values.format !== 'json' && values.format !== 'csv') throw new CliError(`--format takes json or csv, not "${values.format}"`, 2);
    const range = { since: dateOf('--since', values.since), until: dateOf('--until', values.until) };
    if (range.since !== undefined && range.until !== undefined && range.since >= range.until) throw new CliError('--since must be before --until', 2);
    // --file names a copy of this machine's trail: it is read, never the store.
    const store = values.local || values.file !== undefined ? undefined : await openStore(io, 'export');
    if (!store) return exportLines(io, localLines(trailOf(values.file)), range, values.format, command);
    try {
      return await exportLines(io, storedLines(store, range), range, values.format, command, true);
    } finally {
      await store.end().catch(() => undefined);
    }
  }
  throw new CliError(`say what to do: verify or export (${command} audit --help)`, 2);
}

/** The key of this machine's trail; undefined when there is none (nothing was ever recorded here, or it was lost). */
function readKey(file: string): Buffer | undefined {
  let keyText: string | undefined;
  try {
    keyText = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new CliError(`its key ${file} cannot be read: ${(error as Error).message}`);
  }
  const key = keyText === undefined ? undefined : parseAuditKey(keyText);
  if (keyText !== undefined && !key) throw new CliError(`its key ${file} is not 64 hexadecimal characters`);
  return key;
}

function verify(io: CommandIo, files: { trail: string; head: string; key: string }, key: Buffer | undefined): number {
  // No key: nothing was ever recorded in this state directory (it is made with the first line), or it was lost.
  const verdict = verifyAuditTrail(files, key ?? Buffer.alloc(32));
  if (!key && !(verdict.ok && verdict.lines === 0)) throw new CliError(`its key ${files.key} is missing: no line's MAC can be checked without it (put it back from its backup)`);
  if (!verdict.ok) {
    io.stdout(`line ${verdict.line}: ${terminalText(verdict.problem)}\n`);
    return 1;
  }
  io.stdout(verdict.lines === 0 ? 'ok: 0 lines (nothing recorded yet)\n' : `ok: ${verdict.lines} lines, from ${verdict.from} to ${verdict.to}\n`);
  return 0;
}

/**
 * The shared store's client, when one is set; undefined without. A store that cannot be used is an
 * error that says why, and that --local reads this machine's own trail.
 */
async function openStore(io: CommandIo, action: 'verify' | 'export'): Promise<Client | undefined> {
  const choice = chooseStore(io.env);
  if (choice.kind === 'none') return undefined;
  const local = `\`${askbridgeCommand(io.env)} audit ${action} --local\` reads this machine's own trail only`;
  if (choice.kind === 'error') throw new CliError(`${choice.message}\n${local}`);
  try {
    return await connectClient(choice.setting.url, io.env);
  } catch (error) {
    if (error instanceof StoreConnectError) throw new CliError(`the shared store cannot be read: ${error.message}\n${local}`);
    throw error;
  }
}

/**
 * Every trail in the store, each checked as a file is (createTrailCheck): numbered from 1 without
 * a gap, each line naming the hash of the one before, and its first line the one it is named by; a
 * trail whose first line is sealed with this machine's key has every MAC checked too. The store's
 * copy of this machine's trail must hold exactly the file's lines. One line per trail, naming the
 * first broken line; 1 when any is.
 */
async function verifyStore(io: CommandIo, store: Client, trailFile: string, key: Buffer | undefined): Promise<number> {
  const own = ownTrailId(trailFile);
  let broken = 0;
  const trails = await storeAuditTrails(store);
  for (const { trail, daemon } of trails) {
    const found = await verifyStoredTrail(store, trail, key, trail === own ? trailFile : undefined);
    const name = `store: trail ${trail.slice(0, 12)} of daemon ${terminalText(daemon)}${trail === own ? ' (this machine\'s)' : ''}`;
    if (found.ok) io.stdout(`${name}: ok: ${found.lines} lines, from ${found.from} to ${found.to}${found.macs ? '' : ' (MACs not checked: its key is not here)'}\n`);
    else io.stdout(`${name}: line ${found.line}: ${terminalText(found.problem)}\n`);
    if (!found.ok) broken += 1;
  }
  if (own !== undefined && !trails.some((stored) => stored.trail === own)) {
    io.stdout(`store: this machine's trail: line 1: in the file but not in the store (not copied yet: is the daemon running?)\n`);
    broken += 1;
  }
  return broken === 0 ? 0 : 1;
}

/** This machine's trail's name in the store (the SHA-256 of its first line); undefined while it has none. */
function ownTrailId(trailFile: string): string | undefined {
  if (!existsSync(trailFile)) return undefined;
  for (const { bytes, ended } of fileLines(trailFile)) return ended ? trailIdOf(bytes) : undefined;
  return undefined;
}

type StoredVerdict = { ok: true; lines: number; from?: string | undefined; to?: string | undefined; macs: boolean } | BrokenLine;

async function verifyStoredTrail(store: Client, trail: string, key: Buffer | undefined, file: string | undefined): Promise<StoredVerdict> {
  const fileText = file === undefined ? undefined : fileLines(file);
  try {
    return await compareStoredTrail(store, trail, key, fileText);
  } finally {
    fileText?.return(undefined);
  }
}

/** The store's copy of a trail checked line by line, and against this machine's file of it (`fileText`) when it is this machine's. */
async function compareStoredTrail(store: Client, trail: string, key: Buffer | undefined, fileText: ReturnType<typeof fileLines> | undefined): Promise<StoredVerdict> {
  let check: ReturnType<typeof createTrailCheck> | undefined;
  let macs = false;
  let count = 0;
  for await (const row of storeTrailLines(store, trail)) {
    count += 1;
    if (count === 1) {
      if (trailIdOf(row.line) !== trail) return { ok: false, line: 1, problem: 'not the line the trail is named by (its hash differs): changed' };
      // Its MACs are checked where its key is: the first line is sealed with it.
      macs = key !== undefined && macMatches(row.line, key);
      check = createTrailCheck(macs ? key : undefined);
    }
    if (row.seq !== count) return { ok: false, line: count, problem: `removed or reordered (line ${count} of the store's copy is numbered ${row.seq})` };
    const broken = check!.next(row.line);
    if (broken) return broken;
    const read = readAuditLine(row.line);
    if (read.ok && read.line.seq !== row.seq) return { ok: false, line: count, problem: `its copy is numbered ${row.seq} in the store` };
    if (fileText) {
      const inFile = fileText.next();
      if (inFile.done) return { ok: false, line: count, problem: 'in the store but not in the file' };
      if (inFile.value.bytes.toString('utf8') !== row.line) return { ok: false, line: count, problem: "differs between the file and the store's copy" };
    }
  }
  if (fileText) {
    const more = fileText.next();
    if (!more.done && more.value.ended) return { ok: false, line: count + 1, problem: 'in the file but not in the store (not copied yet: is the daemon running?)' };
  }
  const { lines, from, to } = check?.state() ?? { lines: 0 };
  return { ok: true, lines, from, to, macs };
}

/** A date or time as --since and --until take it (anything Date reads: 2026-12-01, 2026-12-01T09:30:00Z), in ms. */
function dateOf(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new CliError(`${flag} takes a date or a time (2026-12-01, 2026-12-01T09:30:00Z), not "${terminalText(value)}"`, 2);
  return ms;
}

/** This machine's trail, line by line. */
function* localLines(trail: string): Generator<{ text: string }> {
  for (const { bytes } of existsSync(trail) ? fileLines(trail) : []) yield { text: bytes.toString('utf8') };
}

/** Every daemon's trails in the store, by time, each line with the daemon that copied it. */
async function* storedLines(store: Client, range: { since: number | undefined; until: number | undefined }): AsyncGenerator<{ text: string; daemon: string }> {
  for await (const row of storeAuditLines(store, range)) yield { text: row.line, daemon: row.daemon };
}

/**
 * The lines from --since (included) to --until (not included). A line that cannot be read is left
 * out, said on stderr, and the exit is 1: what is written is what could be read. From the store,
 * the CSV names each line's daemon too; a JSON line stays exactly as in its trail.
 */
async function exportLines(io: CommandIo, source: Iterable<{ text: string; daemon?: string }> | AsyncIterable<{ text: string; daemon?: string }>, range: { since: number | undefined; until: number | undefined }, format: 'json' | 'csv', command: string, fromStore = false): Promise<number> {
  const inRange = (line: AuditLine) => (range.since === undefined || line.atMs >= range.since) && (range.until === undefined || line.atMs < range.until);
  const lines: { line: AuditLine; daemon?: string }[] = [];
  let skipped = 0;
  let number = 0;
  for await (const { text, daemon } of source) {
    number += 1;
    const read = readAuditLine(text);
    if (!read.ok) {
      skipped += 1;
      io.stderr(`line ${number} left out: ${read.problem}\n`);
      continue;
    }
    if (!inRange(read.line)) continue;
    // Exactly as in the trail (its MAC still checks); a line askbridge wrote has no invisible character left to escape.
    if (format === 'json') io.stdout(`${escapeInvisibleInJson(text)}\n`);
    else lines.push({ line: read.line, ...(daemon === undefined ? {} : { daemon }) });
  }
  if (format === 'csv') io.stdout(auditCsv(lines, fromStore));
  if (skipped > 0) {
    io.stderr(`${skipped} line(s) could not be read: \`${command} audit verify\` says what is wrong\n`);
    return 1;
  }
  return 0;
}
