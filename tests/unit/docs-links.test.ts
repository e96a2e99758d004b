// The README and the pages in docs/ point at each other: every relative link names a file that
// exists, and every #anchor a heading that file has, so moving a section cannot leave a dead link.
// What askbridge prints points into them too: each page and section a message names is there.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PAGES = [join(ROOT, 'README.md'), ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => join(ROOT, 'docs', name))];
const README_MAX_LINES = 200;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** Each place a message of the code sends a reader: `see "Section" in docs/page.md`, `README: "Section"`, a bare page. */
function pointers(code: string): { page: string; section?: string }[] {
  const found: { page: string; section?: string }[] = [];
  for (const [, section = '', page = ''] of code.matchAll(/"([^"\n]+)" in (?:the )?(README|docs\/[\w-]+\.md)/g)) found.push({ page, section });
  for (const [, section = ''] of code.matchAll(/README: "([^"\n]+)"/g)) found.push({ page: 'README', section });
  for (const [page = ''] of code.matchAll(/docs\/[\w-]+\.md/g)) found.push({ page });
  return found;
}

/** The text outside fenced blocks and inline code, where a link is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** Each heading's anchor as GitHub makes it: lower case, punctuation gone, spaces as hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading = ''] of markdown.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '').matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Every link target that stays in this repository: `[text](target)`, without its title. */
function localLinks(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map(([, target = '']) => target).filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

describe('the README and docs/', () => {
  it('link only to files that exist and to headings those files have', () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      for (const target of localLinks(readFileSync(page, 'utf8'))) {
        const [path = '', anchor] = target.split('#');
        const file = path === '' ? page : join(dirname(page), decodeURIComponent(path));
        if (!existsSync(file)) broken.push(`${relative(ROOT, page)}: ${target} (no such file)`);
        else if (anchor !== undefined && !anchorsOf(readFileSync(file, 'utf8')).has(decodeURIComponent(anchor))) broken.push(`${relative(ROOT, page)}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('list every page of docs/ in the README', () => {
    const linked = new Set(localLinks(readFileSync(join(ROOT, 'README.md'), 'utf8')).map((target) => target.split('#')[0]));
    const unlisted = PAGES.slice(1).map((page) => relative(ROOT, page)).filter((page) => !linked.has(page));
    expect(unlisted).toEqual([]);
  });

  it(`keep the README short enough to read before the first command (at most ${README_MAX_LINES} lines)`, () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8').trimEnd().split('\n').length).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it('hold every page and section a message askbridge prints names', () => {
    const code = ['src', 'bin', 'hooks'].flatMap((dir) => filesUnder(join(ROOT, dir)));
    const missing: string[] = [];
    for (const file of code) {
      for (const { page, section } of pointers(readFileSync(file, 'utf8'))) {
        const path = join(ROOT, page === 'README' ? 'README.md' : page);
        const headings = existsSync(path) ? readFileSync(path, 'utf8').match(/^#{1,6} .+$/gm) ?? [] : undefined;
        const held = headings !== undefined && (section === undefined || headings.some((heading) => heading.replace(/^#+ /, '').toLowerCase().startsWith(section.toLowerCase())));
        if (!held) missing.push(`${relative(ROOT, file)}: ${section === undefined ? page : `"${section}" in ${page}`}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('find a broken link and a missing heading (the check itself)', () => {
    expect(localLinks('[a](docs/x.md#y) `[b](c.md)` [c](https://example.com) [d](#top "Top")')).toEqual(['docs/x.md#y', '#top']);
    expect([...anchorsOf('# Codex CLI: its permissions (`askbridge install --codex`)\n## Notes\n## Notes\n```\n# not a heading\n```')]).toEqual([
      'codex-cli-its-permissions-askbridge-install---codex',
      'notes',
      'notes-1',
    ]);
    expect(pointers('see "From your phone" in the README; (README: "Telegram"); see "Away" in docs/away.md; docs/cli.md')).toEqual([
      { page: 'README', section: 'From your phone' },
      { page: 'docs/away.md', section: 'Away' },
      { page: 'README', section: 'Telegram' },
      { page: 'docs/away.md' },
      { page: 'docs/cli.md' },
    ]);
  });
});
