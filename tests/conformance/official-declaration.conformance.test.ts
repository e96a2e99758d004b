/**
 * The vendored AskUserQuestionInput (tests/official/ask-user-question-input.d.ts), to which the
 * typecheck pins askbridge's schema, is the declaration the pinned client ships in its
 * sdk-tools.d.ts: both are taken out of their files and compared line by line, with only
 * whitespace normalized, and any difference is shown as a diff.
 */
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../stack/env.js';
import { installedClaude, pinnedClaudeVersion } from './client.js';

const VENDORED = join(REPO_ROOT, 'tests', 'official', 'ask-user-question-input.d.ts');
const OPENING = 'export interface AskUserQuestionInput {';

interface Line {
  /** 1-based, in the file the declaration was taken from. */
  number: number;
  text: string;
}

interface Declaration {
  /** Relative to the repository, for messages. */
  file: string;
  first: number;
  last: number;
  /** Its lines with whitespace normalized: trimmed, runs of whitespace as one space, blank ones dropped. */
  lines: Line[];
}

/** From the opening line to the `}` that closes it: the first line that is only `}`, as the generated file writes it. */
function declarationIn(text: string, file: string): Declaration {
  const raw = text.split(/\r?\n/);
  const start = raw.findIndex((line) => line.trim() === OPENING);
  if (start < 0) throw new Error(`${file} has no line \`${OPENING}\``);
  const end = raw.findIndex((line, index) => index > start && line === '}');
  if (end < 0) throw new Error(`${file}: the AskUserQuestionInput declaration at line ${start + 1} is never closed by a line \`}\``);
  const lines: Line[] = [];
  for (let index = start; index <= end; index += 1) {
    const normalized = (raw[index] ?? '').trim().replace(/\s+/g, ' ');
    if (normalized !== '') lines.push({ number: index + 1, text: normalized });
  }
  return { file, first: start + 1, last: end + 1, lines };
}

async function declarationOf(path: string): Promise<Declaration> {
  return declarationIn(await readFile(path, 'utf8'), relative(REPO_ROOT, path));
}

type Step = { kind: ' '; a: Line; b: Line } | { kind: '-'; a: Line } | { kind: '+'; b: Line };

/** A line diff of `a` and `b` (longest common subsequence), with three lines of context; '' when they are the same. */
function lineDiff(a: Declaration, b: Declaration): string {
  const n = a.lines.length;
  const m = b.lines.length;
  // common[i * (m + 1) + j]: the longest common subsequence of a.lines[i..] and b.lines[j..].
  const common = new Uint32Array((n + 1) * (m + 1));
  const at = (i: number, j: number) => common[i * (m + 1) + j] ?? 0;
  for (let i = n - 1; i >= 0; i -= 1) {
    for (let j = m - 1; j >= 0; j -= 1) {
      common[i * (m + 1) + j] = a.lines[i]?.text === b.lines[j]?.text ? at(i + 1, j + 1) + 1 : Math.max(at(i + 1, j), at(i, j + 1));
    }
  }
  const steps: Step[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    const left = a.lines[i];
    const right = b.lines[j];
    if (left && right && left.text === right.text) {
      steps.push({ kind: ' ', a: left, b: right });
      i += 1;
      j += 1;
    } else if (left && (!right || at(i + 1, j) >= at(i, j + 1))) {
      steps.push({ kind: '-', a: left });
      i += 1;
    } else if (right) {
      steps.push({ kind: '+', b: right });
      j += 1;
    }
  }
  const context = 3;
  const changed = steps.map((step, index) => (step.kind === ' ' ? -1 : index)).filter((index) => index >= 0);
  if (changed.length === 0) return '';
  const out = [`--- ${a.file} (lines ${a.first}-${a.last})`, `+++ ${b.file} (lines ${b.first}-${b.last})`];
  let shownUntil = -1;
  for (const index of changed) {
    const from = Math.max(index - context, shownUntil + 1);
    if (shownUntil < 0 || from > shownUntil + 1) {
      const step = steps[from];
      const where = step && 'a' in step ? `${a.file}:${step.a.number}` : step && 'b' in step ? `${b.file}:${step.b.number}` : '';
      out.push(`@@ ${where} @@`);
    }
    for (let k = from; k <= Math.min(index + context, steps.length - 1); k += 1) {
      const step = steps[k];
      if (!step) continue;
      out.push(step.kind === '+' ? `+ ${step.b.text}` : `${step.kind} ${step.a.text}`);
      shownUntil = k;
    }
  }
  return out.join('\n');
}

describe('the vendored AskUserQuestionInput is the pinned client declaration', () => {
  it('names the pinned client version in its header', async () => {
    const text = await readFile(VENDORED, 'utf8');
    const header = text.slice(0, text.indexOf(OPENING));
    expect(header).toContain(`@anthropic-ai/claude-code ${pinnedClaudeVersion()},`);
  });

  it('is, whitespace aside, the declaration in the pinned client sdk-tools.d.ts', async () => {
    const client = await installedClaude();
    expect(client.version).toBe(pinnedClaudeVersion());
    const official = await declarationOf(join(client.packageDir, 'sdk-tools.d.ts'));
    const diff = lineDiff(await declarationOf(VENDORED), official);
    expect(
      diff,
      `${relative(REPO_ROOT, VENDORED)} differs from Claude Code ${client.version}: copy lines ${official.first}-${official.last} of ${official.file} below its header`,
    ).toBe('');
  });

  // Run against another client (CLAUDE_CODE_VERSION=latest, say), the suite also says whether moving the pin
  // there would change the tool's input.
  it.skipIf(!process.env.CLAUDE_CODE_VERSION?.trim())('is also the declaration of the client CLAUDE_CODE_VERSION names', async () => {
    const client = await installedClaude(process.env.CLAUDE_CODE_VERSION?.trim());
    const diff = lineDiff(await declarationOf(VENDORED), await declarationOf(join(client.packageDir, 'sdk-tools.d.ts')));
    expect(diff, `Claude Code ${client.version} declares another AskUserQuestionInput than the pinned ${pinnedClaudeVersion()}`).toBe('');
  });

  it('tells a changed declaration from a reindented one, with a diff that shows the change', async () => {
    const vendored = await readFile(VENDORED, 'utf8');
    const original = declarationIn(vendored, 'original');
    const reindented = declarationIn(vendored.replace(/^( +)/gm, '$1$1').replace(/: string;/g, ':   string;'), 'reindented');
    expect(lineDiff(original, reindented)).toBe('');

    const changed = declarationIn(vendored.replace('multiSelect: boolean;', 'multiSelect?: boolean;'), 'changed');
    const diff = lineDiff(original, changed);
    expect(diff).toContain('- multiSelect: boolean;\n+ multiSelect?: boolean;');
    expect(diff).toMatch(/^--- original \(lines \d+-\d+\)\n\+\+\+ changed \(lines \d+-\d+\)\n@@ original:\d+ @@\n/);
    // Only that change and its context, not the whole declaration.
    expect(diff.split('\n').length).toBeLessThan(20);
  });
});
