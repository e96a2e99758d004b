// Every command a message tells the user to type is one that runs here: built from
// askbridgeCommand (src/command-name.ts), never a bare `askbridge <command>`, which on a fresh
// clone (askbridge not on PATH) names a command the shell does not have. Read from the source's
// string and template literals (comments are documentation, and free to say `askbridge start`).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

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
const ANOTHER_MACHINE = /on the machine running askbridge|on the daemon's machine/;

function bareHints(path: string): string[] {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      const isFix = ts.isPropertyAssignment(node.parent) && node.parent.name.getText(source) === 'fix'
        || (ts.isTemplateHead(node) && ts.isTemplateExpression(node.parent) && ts.isPropertyAssignment(node.parent.parent) && node.parent.parent.name.getText(source) === 'fix');
      if (!ANOTHER_MACHINE.test(node.text) && (BARE_IN_BACKTICKS.test(node.text) || (isFix && BARE_FIX.test(node.text)))) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
        found.push(`${relative(ROOT, path)}:${line + 1}: ${node.text.slice(0, 100)}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('printed hints', () => {
  it('name askbridge as askbridgeCommand says, never as a bare `askbridge <command>`', () => {
    const offenders = sourcesUnder(join(ROOT, 'src')).flatMap(bareHints);
    expect(offenders).toEqual([]);
  });
});
