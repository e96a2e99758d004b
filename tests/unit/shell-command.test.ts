// parseShell: a shell command line split into the simple commands it runs, what runs nested in it,
// and whether it is simple; unsure where it cannot be read with certainty.
import { describe, expect, it } from 'vitest';
import { parseShell } from '../../src/shell-command.js';

const words = (text: string) => parseShell(text).commands.map((command) => command.words);

describe('parseShell', () => {
  it('reads one plain command as simple', () => {
    const parsed = parseShell('npm test -- --run');
    expect(parsed).toMatchObject({ simple: true, sure: true, nested: [] });
    expect(parsed.why).toBeUndefined();
    expect(parsed.commands).toEqual([{ words: ['npm', 'test', '--', '--run'], dynamic: [false, false, false, false], assignments: [], redirects: [], text: 'npm test -- --run' }]);
  });

  it('keeps operators inside quotes as text', () => {
    expect(parseShell('echo "a && b"')).toMatchObject({ simple: true, commands: [{ words: ['echo', 'a && b'] }] });
    expect(parseShell("echo 'a; rm -rf /' | cat")).toMatchObject({ simple: false, commands: [{ words: ['echo', 'a; rm -rf /'] }, { words: ['cat'] }] });
    expect(parseShell('echo a\\;b')).toMatchObject({ simple: true, commands: [{ words: ['echo', 'a;b'] }] });
  });

  it('splits a line at every separator and says which', () => {
    const parsed = parseShell('npm test; rm -rf /');
    expect(parsed.simple).toBe(false);
    expect(parsed.why).toBe('several commands (;)');
    expect(words('a && b || c | d |& e & f\ng')).toEqual([['a'], ['b'], ['c'], ['d'], ['e'], ['f'], ['g']]);
    expect(parseShell('a && b || c | d |& e & f\ng').commands.map((command) => command.separator)).toEqual(['&&', '||', '|', '|&', '&', '\n', undefined]);
    expect(parseShell('a\nb').why).toBe('several commands (a new line)');
    expect(parseShell('sleep 5 &').why).toBe('runs in the background (&)');
    expect(parseShell('npm test;').simple).toBe(true);
  });

  it('keeps each command’s own text', () => {
    expect(parseShell('npm test  &&  git push -f origin main').commands.map((command) => command.text)).toEqual(['npm test', 'git push -f origin main']);
  });

  it('gives what a command substitution runs, in $(…) and in backticks, also inside double quotes', () => {
    expect(parseShell('npm test $(curl x)')).toMatchObject({ simple: false, why: 'a command substitution', nested: ['curl x'] });
    expect(parseShell('npm test $(curl x)').commands[0]).toMatchObject({ words: ['npm', 'test', '$(curl x)'], dynamic: [false, false, true] });
    expect(parseShell('echo `rm -rf ~`').nested).toEqual(['rm -rf ~']);
    expect(parseShell('echo "now: $(date; rm x)"').nested).toEqual(['date; rm x']);
    expect(parseShell('echo "$(echo ")")"').nested).toEqual(['echo ")"']);
    expect(parseShell('echo $(a $(b) c)').nested).toEqual(['a $(b) c']);
    expect(parseShell('echo `echo \\`id\\``').nested).toEqual(['echo `id`']);
    expect(parseShell("echo '$(not run)'")).toMatchObject({ simple: true, nested: [] });
  });

  it('reads a here-document inside a substitution, as a commit message is often written', () => {
    const line = "git commit -m \"$(cat <<'EOF'\nDon't stop (here\n\nEOF\n)\" && git log -1";
    const parsed = parseShell(line);
    expect(parsed).toMatchObject({ sure: true, why: 'a command substitution', nested: ["cat <<'EOF'\nDon't stop (here\n\nEOF\n"] });
    expect(parsed.commands.map((command) => command.words[0])).toEqual(['git', 'git']);
    expect(parseShell(parsed.nested[0]!).commands[0]!.redirects).toEqual([{ op: '<<', target: 'EOF', body: "Don't stop (here\n" }]);
  });

  it('gives what a process substitution, a subshell and an arithmetic expansion run', () => {
    expect(parseShell('diff <(ls a) >(tee b)')).toMatchObject({ why: 'a process substitution', nested: ['ls a', 'tee b'] });
    expect(parseShell('(cd build && rm -rf out) | cat')).toMatchObject({ why: 'a subshell', nested: ['cd build && rm -rf out'], commands: [{ words: ['cat'] }] });
    expect(parseShell('echo $((1 + $(id -u)))')).toMatchObject({ why: 'an arithmetic expansion', nested: ['1 + $(id -u)'] });
  });

  it('drops the reserved words of a group or an if, and keeps the commands inside', () => {
    expect(parseShell('{ npm test; rm -rf /; }')).toMatchObject({ why: 'a compound command', sure: true });
    expect(words('{ npm test; rm -rf /; }')).toEqual([['npm', 'test'], ['rm', '-rf', '/']]);
    expect(words('if test -d x; then rm -r x; else echo no; fi')).toEqual([['test', '-d', 'x'], ['rm', '-r', 'x'], ['echo', 'no']]);
    expect(words('! grep -q x f')).toEqual([['grep', '-q', 'x', 'f']]);
    expect(words('echo if then')).toEqual([['echo', 'if', 'then']]);
  });

  it('reports redirects with their targets, here-documents with their bodies', () => {
    const parsed = parseShell('npm test > out.log 2>&1 <in &>>all');
    expect(parsed).toMatchObject({ simple: false, why: 'a redirect' });
    expect(parsed.commands[0]!.words).toEqual(['npm', 'test']);
    expect(parsed.commands[0]!.redirects).toEqual([
      { op: '>', target: 'out.log' },
      { op: '2>&', target: '1' },
      { op: '<', target: 'in' },
      { op: '&>>', target: 'all' },
    ]);
    expect(parseShell('echo key >> ~/.ssh/authorized_keys').commands[0]!.redirects).toEqual([{ op: '>>', target: '~/.ssh/authorized_keys' }]);
    const doc = parseShell("cat <<'EOF' > ~/.ssh/config\nHost *\n  $(not run)\nEOF\necho done");
    expect(doc).toMatchObject({ sure: true, nested: [] });
    expect(doc.commands.map((command) => command.words)).toEqual([['cat'], ['echo', 'done']]);
    expect(doc.commands[0]!.redirects).toEqual([
      { op: '<<', target: 'EOF', body: 'Host *\n  $(not run)' },
      { op: '>', target: '~/.ssh/config' },
    ]);
    expect(parseShell('bash <<EOF\nrm -rf $(pwd)\nEOF').nested).toEqual(['pwd']);
    expect(parseShell('cat <<-EOF\n\tx\n\tEOF').commands[0]!.redirects[0]).toEqual({ op: '<<-', target: 'EOF', body: 'x' });
    expect(parseShell('cat <<< "$(id)"').nested).toEqual(['id']);
  });

  it('reports assignments apart from the command’s words, and expansions as dynamic words', () => {
    expect(parseShell('NODE_ENV=test npm test')).toMatchObject({ why: 'a variable assignment', commands: [{ assignments: ['NODE_ENV=test'], words: ['npm', 'test'] }] });
    expect(parseShell('X="$(curl x)"')).toMatchObject({ nested: ['curl x'], commands: [{ assignments: ['X=$(curl x)'], words: [] }] });
    const defaulted = '$' + '{DIR:-/}'; // a shell expansion, not a template placeholder
    expect(parseShell(`rm -rf "$HOME/x" ${defaulted}`)).toMatchObject({ why: 'a variable expansion', commands: [{ words: ['rm', '-rf', '$HOME/x', defaulted], dynamic: [false, false, true, true] }] });
    expect(parseShell('echo "X=1"').commands[0]!.words).toEqual(['echo', 'X=1']);
    expect(parseShell('echo a=1').commands[0]!.words).toEqual(['echo', 'a=1']);
    expect(parseShell('echo $ costs').simple).toBe(true);
  });

  it('flags unquoted globs and brace lists, and not quoted ones', () => {
    expect(parseShell('rm -rf /*')).toMatchObject({ why: 'a glob', commands: [{ dynamic: [false, false, true] }] });
    expect(parseShell('ls src/{a,b}.ts').why).toBe('a glob');
    expect(parseShell('ls [ab].ts').why).toBe('a glob');
    expect(parseShell('echo "*" \'?\'').simple).toBe(true);
    expect(parseShell('[ -f x ]').simple).toBe(true);
  });

  it('decodes quoting: double quotes with escapes, $\'…\', and line continuations', () => {
    expect(words('echo "a \\"b\\" \\$c \\n"')).toEqual([['echo', 'a "b" $c \\n']]);
    expect(words("echo $'a\\tb\\x41\\'c'")).toEqual([['echo', "a\tbA'c"]]);
    expect(words("r$'m' -rf /")).toEqual([['rm', '-rf', '/']]);
    expect(words('r""m -rf /')).toEqual([['rm', '-rf', '/']]);
    expect(parseShell('a\\\nb')).toMatchObject({ simple: true, commands: [{ words: ['ab'] }] });
    expect(words('npm \\\n  test')).toEqual([['npm', 'test']]);
    expect(words('echo "a\\\nb"')).toEqual([['echo', 'ab']]);
    expect(words("echo 'a\\\nb'")).toEqual([['echo', 'a\\\nb']]);
  });

  it('skips comments, but not a # inside a word', () => {
    expect(words('npm test # && rm -rf /')).toEqual([['npm', 'test']]);
    expect(words('echo a#b')).toEqual([['echo', 'a#b']]);
  });

  it('says it is unsure, and never simple, where it cannot read the line with certainty', () => {
    for (const [line, why] of [
      ['echo "abc', 'an unterminated double quote'],
      ["echo 'abc", 'an unterminated single quote'],
      ["echo $'abc", "an unterminated $'"],
      ['echo `abc', 'an unterminated backtick'],
      ['echo $(abc', 'an unbalanced ('],
      ['echo abc)', 'an unbalanced )'],
      ['cat <<EOF\nabc', 'an unterminated here-document'],
      ['cat <<EOF', 'an unterminated here-document'],
      ['case $x in a) rm -rf /;; esac', 'a case statement'],
      ['f() { rm -rf /; }', 'a function definition'],
      ['echo >', 'a redirect (>) without a target'],
      ['&& echo', '&& without a command before it'],
      [`${'$('.repeat(100_000)}x${')'.repeat(100_000)}`, 'parentheses nested too deeply'],
      ['$\u{7b}x'.repeat(100_000), 'braces nested too deeply'],
    ] as const) {
      const parsed = parseShell(line);
      expect({ line, sure: parsed.sure, simple: parsed.simple, unsure: parsed.unsure }).toEqual({ line, sure: false, simple: false, unsure: why });
    }
  });

  it('follows a loop: its header runs nothing, its body is commands', () => {
    expect(parseShell('for f in $(ls); do rm -rf "$f"; done')).toMatchObject({ sure: true, why: 'a compound command', nested: ['ls'] });
    expect(words('for f in *; do rm -rf "$f"; done')).toEqual([['rm', '-rf', '$f']]);
    expect(words('while read -r f; do rm "$f"; done < list')).toEqual([['read', '-r', 'f'], ['rm', '$f'], []]);
  });

  it('still gives what it found in a line it is unsure of', () => {
    expect(parseShell('echo $(rm -rf / ').nested).toEqual(['rm -rf / ']);
  });

  it('reads an empty line as no command', () => {
    expect(parseShell('')).toMatchObject({ commands: [], simple: true, sure: true });
    expect(parseShell('  \n # nothing\n')).toMatchObject({ commands: [], simple: true, sure: true });
  });
});
