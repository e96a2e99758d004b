// Every command a message tells the user to type is one that runs here: built from
// askbridgeCommand (src/command-name.ts), never a bare `askbridge <command>`, which on a fresh
// clone (askbridge not on PATH) names a command the shell does not have. Read from the source's
// string and template literals (comments are documentation, and free to say `askbridge start`):
// in backticks anywhere, and without them in what the CLI prints (usages, --help, "answer it with
// askbridge answer ID ..."). The daemon's own texts are read on the page, a phone or another
// machine, and only their backticked commands are held to this.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { COMMAND_NAMES } from '../../src/cli/main.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourcesUnder(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** A backticked bare command (`askbridge stop`), or a doctor fix line that starts with one. */
const BARE_IN_BACKTICKS = /`askbridge [a-z]/;
const BARE_FIX = /^askbridge [a-z]/;
/**
 * Text that sends the reader to another machine, where this one's form does not run: a page seen
 * through the public URL (which shows no folder of this machine), a remote hook's daemon.
 */
const ANOTHER_MACHINE = /on the machine running askbridge|on the daemon's machine|installed on the other machine/;
/**
 * A command without backticks: askbridge, then one of its commands (or --help, or a placeholder
 * `${…}` for one before an option), not followed by a colon: `askbridge answer: …` is the name a message starts with.
 */
const BARE_COMMAND = new RegExp(`(?<![\\w./'-])askbridge (?:--?[a-z]|<command>|\\$\\{\\}(?= --)|(?:${COMMAND_NAMES.join('|')})(?![\\w-]|:))`);

function bareHints(path: string): string[] {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const printedByTheCli = !relative(join(ROOT, 'src'), path).startsWith('daemon');
  const report = (node: ts.Node, text: string) => {
    const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
    found.push(`${relative(ROOT, path)}:${line + 1}: ${text.slice(0, 100)}`);
  };
  const visit = (node: ts.Node): void => {
    // A whole literal, each `${…}` as `${}`: `askbridge ${name} --help` is a command too.
    const whole = ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) ? node.text : ts.isTemplateExpression(node) ? node.head.text + node.templateSpans.map((span) => `\${}${span.literal.text}`).join('') : undefined;
    if (printedByTheCli && whole !== undefined && !ANOTHER_MACHINE.test(whole) && BARE_COMMAND.test(whole)) report(node, whole);
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      const isFix = ts.isPropertyAssignment(node.parent) && node.parent.name.getText(source) === 'fix'
        || (ts.isTemplateHead(node) && ts.isTemplateExpression(node.parent) && ts.isPropertyAssignment(node.parent.parent) && node.parent.parent.name.getText(source) === 'fix');
      if (!ANOTHER_MACHINE.test(node.text) && (BARE_IN_BACKTICKS.test(node.text) || (isFix && BARE_FIX.test(node.text)))) report(node, node.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('printed hints', () => {
  it('name askbridge as askbridgeCommand says, never as a bare `askbridge <command>`, in backticks or not', () => {
    const offenders = sourcesUnder(join(ROOT, 'src')).flatMap(bareHints);
    expect(offenders).toEqual([]);
  });
});
