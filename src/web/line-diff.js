// @ts-check
// A line-based diff of an edit's old text and new text, as a person reads a patch: each line kept,
// removed or added, in order. Myers' algorithm, after the common start and end are set aside, so
// that a small edit in a long file costs little. An edit so large that comparing it line by line
// would take too long is shown whole, as every old line removed and every new line added, and says
// so: nothing is ever left out.

/** @typedef {{ kind: 'same' | 'removed' | 'added'; text: string }} DiffLine */

/** Beyond this many differing lines the comparison stops (its memory grows with the square of it). */
const MAX_EDIT_DISTANCE = 1000;

/**
 * The text's lines. A final newline ends the last line; it does not start an empty one.
 * @param {string} text
 */
export function splitLines(text) {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/**
 * The lines of `before` and `after`, each kept, removed or added; `exact` is false when the texts
 * were too different to compare, and are shown as all removed, then all added.
 * @param {string} before
 * @param {string} after
 * @returns {{ lines: DiffLine[]; exact: boolean }}
 */
export function diffLines(before, after) {
  const a = splitLines(before);
  const b = splitLines(after);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  /** @param {string[]} list @param {DiffLine['kind']} kind */
  const as = (list, kind) => list.map((text) => ({ kind, text }));
  const middle = myers(a.slice(start, endA), b.slice(start, endB));
  const exact = middle !== null;
  const changed = middle ?? [...as(a.slice(start, endA), 'removed'), ...as(b.slice(start, endB), 'added')];
  return { lines: [...as(a.slice(0, start), 'same'), ...changed, ...as(a.slice(endA), 'same')], exact };
}

/**
 * The shortest edit script from `a` to `b` (E. Myers, 1986), or null when it is longer than
 * MAX_EDIT_DISTANCE lines.
 * @param {string[]} a
 * @param {string[]} b
 * @returns {DiffLine[] | null}
 */
function myers(a, b) {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  if (max === 0) return [];
  const offset = max + 1;
  // v[k + offset]: how far along `a` the furthest path on diagonal k (x - y) has reached.
  const v = new Int32Array(2 * max + 3);
  /** v after each step d, for k in -d..d (index k + d): what the way back reads. */
  const trace = [];
  let found = -1;
  for (let d = 0; d <= Math.min(max, MAX_EDIT_DISTANCE); d++) {
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && /** @type {number} */ (v[offset + k - 1]) < /** @type {number} */ (v[offset + k + 1])) ? /** @type {number} */ (v[offset + k + 1]) : /** @type {number} */ (v[offset + k - 1]) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) found = d;
      if (found >= 0) break;
    }
    trace.push(v.slice(offset - d, offset + d + 1));
    if (found >= 0) break;
  }
  if (found < 0) return null;

  /** @type {DiffLine[]} built from the end */
  const reversed = [];
  let x = n;
  let y = m;
  for (let d = found; d > 0; d--) {
    const previous = /** @type {Int32Array} */ (trace[d - 1]);
    const at = (/** @type {number} */ k) => /** @type {number} */ (previous[k + d - 1]);
    const k = x - y;
    const previousK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const previousX = at(previousK);
    const previousY = previousX - previousK;
    while (x > previousX && y > previousY) {
      reversed.push({ kind: 'same', text: /** @type {string} */ (a[--x]) });
      y--;
    }
    if (x === previousX) reversed.push({ kind: 'added', text: /** @type {string} */ (b[--y]) });
    else reversed.push({ kind: 'removed', text: /** @type {string} */ (a[--x]) });
  }
  while (x > 0 && y > 0) {
    reversed.push({ kind: 'same', text: /** @type {string} */ (a[--x]) });
    y--;
  }
  return reversed.reverse();
}
