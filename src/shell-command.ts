// A POSIX shell command line, as an agent's shell tool sends it (Claude Code's Bash), split into the
// simple commands it runs. Pure: no I/O, nothing is run or expanded.
//
//   parseShell('npm test && git push -f') ->
//     { commands: [{ words: ['npm', 'test'], separator: '&&', … }, { words: ['git', 'push', '-f'], … }],
//       nested: [], simple: false, why: 'several commands (&&)', sure: true }
//
// - `commands`: each simple command in order, with its words after quote removal (`"a && b"` is one
//   word), the separator that follows it (`separator`), its `NAME=value` prefixes (`assignments`) and its
//   redirects (a here-document's body with it). A word whose value is known only when the shell runs
//   (a `$` expansion, a substitution, an unquoted glob or brace list) keeps its text as written and is
//   flagged in `dynamic`. A leading `~` is left as it is, for the caller to read as the home folder.
//   Reserved words (`if`, `then`, `{`, `!`, …) are dropped, so that `if rm x; then …` yields `rm x`,
//   and a loop's header (`for f in *`) with them: `for f in *; do rm "$f"; done` yields `rm $f`.
// - `nested`: the source of everything that runs inside the line: `$(…)`, backticks, `<(…)`, `>(…)`,
//   subshells `( … )`, arithmetic `$((…))` and substitutions in an unquoted here-document. Callers
//   parse them again (parseShell) to see what they run.
// - `simple`: one command, with none of the above and no redirect, expansion, assignment or glob;
//   `why` says what made it not simple (the first thing found).
// - `sure`: false when the line could not be read with certainty (an unterminated quote or
//   here-document, an unbalanced parenthesis, `case`, a function definition); `unsure` says
//   why. An unsure line is never simple. Callers take "unsure" as "worth a look".
export type Separator = ';' | '&&' | '||' | '|' | '|&' | '&' | '\n';

export interface Redirect {
  /** The operator as written, its file descriptor included: '>', '2>', '>>', '&>', '2>&', '<<', '<<<'. */
  op: string;
  /** The file, the descriptor (`2>&1` → '1') or a here-document's delimiter, after quote removal. */
  target: string;
  /** A here-document's body. */
  body?: string;
}

export interface ShellCommand {
  words: string[];
  /** dynamic[i]: words[i] is known only when the shell runs it. */
  dynamic: boolean[];
  assignments: string[];
  redirects: Redirect[];
  /** The command's source, as written. */
  text: string;
  /** The separator after it; none after the last. */
  separator?: Separator;
}

export interface ParsedShell {
  commands: ShellCommand[];
  nested: string[];
  simple: boolean;
  why?: string;
  sure: boolean;
  unsure?: string;
}

/** Deeper nesting (of parentheses, of `${`) is refused as unsure rather than followed: it bounds the work and the stack. */
const MAX_NESTING = 64;
const BLANK = new Set([' ', '\t']);
/** Characters that end an unquoted word. */
const META = new Set([' ', '\t', '\n', ';', '&', '|', '<', '>', '(', ')']);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;
/** Reserved words that open or close a compound command around simple ones: dropped, the line is not simple. */
const COMPOUND_WORDS = new Set(['{', '}', 'if', 'then', 'elif', 'else', 'fi', 'while', 'until', 'do', 'done', '!', 'time']);
/** Reserved words whose syntax this parser does not follow. */
const UNFOLLOWED_WORDS = new Set(['case', 'esac', 'function', 'coproc']);
/** Reserved words that open a loop header, which names a variable and a list and runs nothing but its substitutions: skipped. */
const LOOP_WORDS = new Set(['for', 'select']);

interface Word {
  value: string;
  dynamic: boolean;
  /** Any part was quoted (a here-document delimiter that is quoted keeps its body literal). */
  quoted: boolean;
  /** The source of the word. */
  raw: string;
}

interface PendingHereDoc {
  redirect: Redirect;
  stripTabs: boolean;
  expands: boolean;
}

class Parser {
  private i: number;
  readonly commands: ShellCommand[] = [];
  readonly nested: string[] = [];
  private whyNot: string | undefined;
  private unsureWhy: string | undefined;
  private current: ReturnType<Parser['emptyCommand']>;
  private start = 0;
  /** Skip the rest of the current command's words (a `for` header). */
  private skipping = false;
  private hereDocs: PendingHereDoc[] = [];
  /** How many `${` the reader is inside. */
  private braceDepth = 0;

  /** Where the `)` that ends a nested reading was found. */
  closedAt: number | undefined;

  private readonly closing: boolean;

  /** `nestedFrom`: read from there up to the `)` that closes a `(` before it, `depth` levels down. */
  constructor(
    private readonly src: string,
    nestedFrom?: number,
    private readonly depth = 0,
  ) {
    this.closing = nestedFrom !== undefined;
    this.i = nestedFrom ?? 0;
    this.current = this.emptyCommand(this.i);
  }

  private emptyCommand(start: number) {
    this.start = start;
    return { words: [] as string[], dynamic: [] as boolean[], assignments: [] as string[], redirects: [] as Redirect[] };
  }

  private note(why: string): void {
    this.whyNot ??= why;
  }

  private doubt(why: string): void {
    this.unsureWhy ??= why;
    this.note(why);
  }

  result(): ParsedShell {
    this.parse();
    const simple = this.whyNot === undefined && this.commands.length <= 1;
    const parsed: ParsedShell = { commands: this.commands, nested: this.nested, simple, sure: this.unsureWhy === undefined };
    if (this.whyNot !== undefined) parsed.why = this.whyNot;
    if (this.unsureWhy !== undefined) parsed.unsure = this.unsureWhy;
    return parsed;
  }

  parse(): void {
    const src = this.src;
    let redirect: string | undefined;
    while (this.i < src.length) {
      const c = src[this.i]!;
      if (BLANK.has(c)) {
        this.i++;
      } else if (c === '\\' && src[this.i + 1] === '\n') {
        this.i += 2;
      } else if (c === '#') {
        while (this.i < src.length && src[this.i] !== '\n') this.i++;
      } else if (c === '\n') {
        this.end('\n', this.i);
        this.i++;
        this.readHereDocs();
      } else if (c === ';') {
        if (src[this.i + 1] === ';') this.doubt('a case statement');
        this.end(';', this.i);
        this.i += src[this.i + 1] === ';' ? 2 : 1;
      } else if (c === '&' && src[this.i + 1] === '&') {
        this.end('&&', this.i);
        this.i += 2;
      } else if (c === '|' && src[this.i + 1] === '|') {
        this.end('||', this.i);
        this.i += 2;
      } else if (c === '|') {
        const both = src[this.i + 1] === '&';
        this.end(both ? '|&' : '|', this.i);
        this.i += both ? 2 : 1;
      } else if (c === '&' && src[this.i + 1] !== '>') {
        this.note('runs in the background (&)');
        this.end('&', this.i);
        this.i++;
      } else if ((c === '<' || c === '>') && src[this.i + 1] === '(') {
        this.addWord(this.readWord());
      } else if ((redirect = matchAt(REDIRECT, src, this.i)) !== undefined) {
        this.readRedirect(redirect);
      } else if (c === '(') {
        this.readSubshell();
      } else if (c === ')' && this.closing) {
        this.closedAt = this.i;
        return;
      } else if (c === ')') {
        this.doubt('an unbalanced )');
        this.i++;
      } else {
        this.addWord(this.readWord());
      }
    }
    this.end(undefined, src.length);
    if (this.hereDocs.length > 0) this.doubt('an unterminated here-document');
  }

  private end(then: Separator | undefined, at: number): void {
    const { words, assignments, redirects } = this.current;
    if (words.length > 0 || assignments.length > 0 || redirects.length > 0) {
      const previous = this.commands.at(-1);
      if (previous?.separator !== undefined) this.note(`several commands (${previous.separator === '\n' ? 'a new line' : previous.separator})`);
      const command: ShellCommand = { ...this.current, text: this.src.slice(this.start, at).trim() };
      if (then !== undefined) command.separator = then;
      this.commands.push(command);
    } else if (then !== undefined && then !== '\n' && !this.skipping) {
      this.doubt(`${then} without a command before it`);
    }
    this.current = this.emptyCommand(at + (then?.length ?? 0));
    this.skipping = false;
  }

  private addWord(word: Word): void {
    const { current } = this;
    if (this.skipping) return;
    if (current.words.length > 0) {
      // An argument, whatever it looks like.
    } else if (word.raw === word.value && COMPOUND_WORDS.has(word.value)) {
      this.note('a compound command');
      this.start = this.i;
      return;
    } else if (word.raw === word.value && LOOP_WORDS.has(word.value)) {
      this.note('a compound command');
      this.skipping = true;
      return;
    } else if (word.raw === word.value && UNFOLLOWED_WORDS.has(word.value)) {
      this.doubt(`a ${word.value} statement`);
      return;
    } else if (ASSIGNMENT.test(word.raw)) {
      this.note('a variable assignment');
      current.assignments.push(word.value);
      return;
    }
    current.words.push(word.value);
    current.dynamic.push(word.dynamic);
  }

  private readRedirect(op: string): void {
    this.i += op.length;
    this.note('a redirect');
    while (this.i < this.src.length && BLANK.has(this.src[this.i]!)) this.i++;
    if (this.i >= this.src.length || META.has(this.src[this.i]!)) {
      this.doubt(`a redirect (${op}) without a target`);
      return;
    }
    const target = this.readWord();
    const redirect: Redirect = { op, target: target.value };
    this.current.redirects.push(redirect);
    if (op.endsWith('<<') || op.endsWith('<<-')) {
      this.hereDocs.push({ redirect, stripTabs: op.endsWith('-'), expands: !target.quoted });
    }
  }

  private readHereDocs(): void {
    const src = this.src;
    for (const doc of this.hereDocs.splice(0)) {
      const lines: string[] = [];
      let found = false;
      while (this.i < src.length) {
        const newline = src.indexOf('\n', this.i);
        const lineEnd = newline === -1 ? src.length : newline;
        let line = src.slice(this.i, lineEnd);
        this.i = newline === -1 ? src.length : newline + 1;
        if (doc.stripTabs) line = line.replace(/^\t+/, '');
        if (line === doc.redirect.target) {
          found = true;
          break;
        }
        lines.push(line);
      }
      doc.redirect.body = lines.join('\n');
      if (!found) this.doubt('an unterminated here-document');
      if (doc.expands) this.readExpansions(doc.redirect.body);
    }
    this.start = this.i;
  }

  /** Substitutions in an unquoted here-document's body run as the line runs. */
  private readExpansions(body: string): void {
    const inner = new Parser(body);
    inner.readQuotedPart(undefined);
    this.nested.push(...inner.nested);
    if (inner.unsureWhy !== undefined) this.doubt(inner.unsureWhy);
  }

  private readSubshell(): void {
    if (this.current.words.length > 0) {
      this.doubt('a function definition');
    } else {
      this.note('a subshell');
    }
    const close = this.matchingParen(this.i + 1);
    if (close === undefined) {
      this.doubt('an unbalanced (');
      this.nested.push(this.src.slice(this.i + 1));
      this.i = this.src.length;
      return;
    }
    this.nested.push(this.src.slice(this.i + 1, close));
    this.i = close + 1;
  }

  /** The index of the `)` that closes a `(` whose content starts at `from`, read as the shell reads it (quotes, here-documents, nesting). */
  private matchingParen(from: number): number | undefined {
    if (this.depth >= MAX_NESTING) {
      this.doubt('parentheses nested too deeply');
      return undefined;
    }
    const inner = new Parser(this.src, from, this.depth + 1);
    inner.parse();
    if (inner.unsureWhy !== undefined) this.doubt(inner.unsureWhy);
    return inner.closedAt;
  }

  /** The index of the closing `"` or backtick for content starting at `from`; -1 when there is none. */
  private closingQuote(from: number, quote: '"' | '`'): number {
    const src = this.src;
    let i = from;
    while (i < src.length) {
      const c = src[i]!;
      if (c === '\\') {
        i += 2;
      } else if (c === quote) {
        return i;
      } else if (quote === '"' && c === '$' && src[i + 1] === '(') {
        const close = this.matchingParen(i + 2);
        if (close === undefined) return -1;
        i = close + 1;
      } else if (quote === '"' && c === '`') {
        const close = this.closingQuote(i + 1, '`');
        if (close === -1) return -1;
        i = close + 1;
      } else {
        i++;
      }
    }
    return -1;
  }

  private readWord(): Word {
    const src = this.src;
    const begin = this.i;
    let value = '';
    let dynamic = false;
    let quoted = false;
    while (this.i < src.length) {
      const c = src[this.i]!;
      if (c === '\\') {
        const next = src[this.i + 1];
        this.i += 2;
        if (next === undefined) {
          this.i = src.length;
        } else if (next !== '\n') {
          value += next;
          quoted = true;
        }
      } else if (c === "'") {
        const close = src.indexOf("'", this.i + 1);
        quoted = true;
        if (close === -1) {
          this.doubt('an unterminated single quote');
          value += src.slice(this.i + 1);
          this.i = src.length;
        } else {
          value += src.slice(this.i + 1, close);
          this.i = close + 1;
        }
      } else if (c === '"') {
        quoted = true;
        this.i++;
        const part = this.readQuotedPart('"');
        value += part.value;
        dynamic ||= part.dynamic;
      } else if (c === '$' && src[this.i + 1] === "'") {
        quoted = true;
        value += this.readAnsiC();
      } else if (c === '$' && src[this.i + 1] === '"') {
        quoted = true;
        this.i += 2;
        const part = this.readQuotedPart('"');
        value += part.value;
        dynamic ||= part.dynamic;
      } else if (c === '$' || c === '`') {
        value += this.readExpansion();
        dynamic = true;
      } else if ((c === '<' || c === '>') && src[this.i + 1] === '(' && this.i === begin) {
        this.note('a process substitution');
        value += this.readParenthesised(this.i + 1);
        dynamic = true;
      } else if (META.has(c)) {
        break;
      } else {
        if (c === '*' || c === '?' || (c === '[' && matchAt(BRACKET_GLOB, src, this.i) !== undefined) || (c === '{' && matchAt(BRACE_LIST, src, this.i) !== undefined)) {
          this.note('a glob');
          dynamic = true;
        }
        value += c;
        this.i++;
      }
    }
    return { value, dynamic, quoted, raw: src.slice(begin, this.i) };
  }

  /**
   * Double-quoted text up to its closing quote (`"`), or a here-document's whole body (undefined):
   * backslash escapes only `$`, backtick, `"`, `\` and a newline, and `$` and backticks expand.
   */
  private readQuotedPart(quote: '"' | undefined): { value: string; dynamic: boolean } {
    const src = this.src;
    let value = '';
    let dynamic = false;
    while (this.i < src.length) {
      const c = src[this.i]!;
      if (c === quote) {
        this.i++;
        return { value, dynamic };
      }
      if (c === '\\') {
        const next = src[this.i + 1];
        if (next !== undefined && '$`"\\\n'.includes(next) && (next !== '"' || quote === '"')) {
          if (next !== '\n') value += next;
          this.i += 2;
        } else {
          value += c;
          this.i++;
        }
      } else if (c === '$' || c === '`') {
        value += this.readExpansion();
        dynamic = true;
      } else {
        value += c;
        this.i++;
      }
    }
    if (quote !== undefined) this.doubt('an unterminated double quote');
    return { value, dynamic };
  }

  /** `$name`, `${…}`, `$(…)`, `$((…))` or a backtick substitution, as written; what runs goes to `nested`. */
  private readExpansion(): string {
    const src = this.src;
    const begin = this.i;
    if (src[this.i] === '`') {
      const close = this.closingQuote(this.i + 1, '`');
      if (close === -1) {
        this.doubt('an unterminated backtick');
        this.nested.push(unescapeBackticks(src.slice(this.i + 1)));
        this.i = src.length;
      } else {
        this.note('a command substitution');
        this.nested.push(unescapeBackticks(src.slice(this.i + 1, close)));
        this.i = close + 1;
      }
      return src.slice(begin, this.i);
    }
    const next = src[this.i + 1];
    if (next === '(') {
      this.note(src[this.i + 2] === '(' ? 'an arithmetic expansion' : 'a command substitution');
      this.i++;
      return `$${this.readParenthesised(this.i)}`;
    }
    if (next === '{') {
      this.note('a variable expansion');
      if (++this.braceDepth > MAX_NESTING) {
        this.doubt('braces nested too deeply');
        this.i = src.length;
        return src.slice(begin);
      }
      const close = this.closingBrace(this.i + 2);
      this.braceDepth--;
      if (close === -1) {
        this.doubt('an unterminated ${');
        this.i = src.length;
      } else {
        this.i = close + 1;
      }
      return src.slice(begin, this.i);
    }
    const name = matchAt(PARAMETER_NAME, src, this.i + 1);
    if (name === undefined) {
      // A lone `$` is itself.
      this.i++;
      return '$';
    }
    this.note('a variable expansion');
    this.i += 1 + name.length;
    return src.slice(begin, this.i);
  }

  /** `${…}` may hold quotes and substitutions of its own; what runs in them goes to `nested`. */
  private closingBrace(from: number): number {
    const src = this.src;
    let i = from;
    while (i < src.length) {
      const c = src[i]!;
      if (c === '}') return i;
      if (c === '\\') {
        i += 2;
      } else if (c === '$' || c === '`') {
        this.i = i;
        this.readExpansion();
        i = this.i;
      } else if (c === "'") {
        const close = src.indexOf("'", i + 1);
        if (close === -1) return -1;
        i = close + 1;
      } else if (c === '"') {
        this.i = i + 1;
        this.readQuotedPart('"');
        i = this.i;
      } else {
        i++;
      }
    }
    return -1;
  }

  /** `(…)` starting at `open`, as written; its content goes to `nested`. */
  private readParenthesised(open: number): string {
    const close = this.matchingParen(open + 1);
    if (close === undefined) {
      this.doubt('an unbalanced (');
      this.nested.push(this.src.slice(open + 1));
      const text = this.src.slice(open);
      this.i = this.src.length;
      return text;
    }
    let body = this.src.slice(open + 1, close);
    // $((1 + 2)) is arithmetic; its inner parentheses go as they are.
    if (body.startsWith('(') && body.endsWith(')')) body = body.slice(1, -1);
    this.nested.push(body);
    this.i = close + 1;
    return this.src.slice(open, close + 1);
  }

  /** `$'…'`: C-style escapes. */
  private readAnsiC(): string {
    const src = this.src;
    let i = this.i + 2;
    let value = '';
    while (i < src.length && src[i] !== "'") {
      const c = src[i]!;
      if (c !== '\\') {
        value += c;
        i++;
        continue;
      }
      const next = src[i + 1] ?? '';
      const simple = ANSI_C_ESCAPES[next];
      if (simple !== undefined) {
        value += simple;
        i += 2;
        continue;
      }
      const digits = matchAt(CODE_POINT_ESCAPE, src, i + 1);
      if (digits !== undefined) {
        const point = /^[0-7]/.test(digits) ? Number.parseInt(digits, 8) : Number.parseInt(digits.slice(1), 16);
        value += point <= 0x10ffff ? String.fromCodePoint(point) : '';
        i += 1 + digits.length;
        continue;
      }
      value += `\\${next}`;
      i += 2;
    }
    if (i >= src.length) {
      this.doubt("an unterminated $'");
      this.i = src.length;
    } else {
      this.i = i + 1;
    }
    return value;
  }
}

// Sticky patterns, matched where the reader stands (matchAt), so a long line is read once.
const REDIRECT = /\d*(<<<|<<-|<<|<>|<&|<|>>|>&|>\||>)|&>>|&>/y;
const BRACKET_GLOB = /\[[^\s;&|<>()]*\]/y;
const BRACE_LIST = /\{[^\s;&|<>()}]*(,|\.\.)[^\s;&|<>()}]*\}/y;
const PARAMETER_NAME = /[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-]/y;
const CODE_POINT_ESCAPE = /x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}/y;

function matchAt(pattern: RegExp, text: string, at: number): string | undefined {
  pattern.lastIndex = at;
  return pattern.exec(text)?.[0];
}

const ANSI_C_ESCAPES: Record<string, string> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};

/** Inside backticks a backslash escapes only `$`, backtick and `\`. */
function unescapeBackticks(text: string): string {
  return text.replace(/\\([$`\\])/g, '$1');
}

/** The simple commands of a shell command line, what runs nested in it, and whether it is simple. */
export function parseShell(text: string): ParsedShell {
  return new Parser(text).result();
}
