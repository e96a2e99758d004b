// @ts-check
// What a person has picked or typed for a waiting question, or the reply they are writing to the end
// of Claude's turn, kept in the page's storage per session and tool call: it survives a reload, a
// reconnect, a daemon restart (the hook asks again with the same ids) and switching between cards.
// It is cleared when the card ends, and a draft nobody came back to is dropped after two days.

const PREFIX = 'askbridge.draft.';
const MAX_AGE_MS = 2 * 24 * 3600 * 1000;

/**
 * One question's state in the form.
 * @typedef {{ selected: string[]; otherChosen: boolean; other: string; note: string; noteOpen: boolean }} QuestionDraft
 * @typedef {{ questions: QuestionDraft[]; reply?: string; savedAt: number }} Draft
 */

/** When storage is off (private mode, full), drafts still survive switching questions in this tab. */
const memory = new Map();

/** @param {{ sessionId: string; toolUseId: string }} view */
function keyOf(view) {
  return `${PREFIX}${view.sessionId}.${view.toolUseId}`;
}

/**
 * @param {{ sessionId: string; toolUseId: string }} view
 * @returns {Draft | null}
 */
export function loadDraft(view) {
  const key = keyOf(view);
  let text = memory.get(key) ?? null;
  try {
    text = localStorage.getItem(key) ?? text;
  } catch {
    // storage disabled: the in-memory copy is all there is
  }
  if (!text) return null;
  try {
    const draft = JSON.parse(text);
    return draft && Array.isArray(draft.questions) ? draft : null;
  } catch {
    return null;
  }
}

/**
 * @param {{ sessionId: string; toolUseId: string }} view
 * @param {QuestionDraft[]} questions
 */
export function saveDraft(view, questions) {
  store(view, { questions, savedAt: Date.now() });
}

/**
 * The reply written so far to the end of a turn ('' when none).
 * @param {{ sessionId: string; toolUseId: string }} view
 */
export function loadReplyDraft(view) {
  const reply = loadDraft(view)?.reply;
  return typeof reply === 'string' ? reply : '';
}

/**
 * @param {{ sessionId: string; toolUseId: string }} view
 * @param {string} reply
 */
export function saveReplyDraft(view, reply) {
  if (reply === '') clearDraft(view);
  else store(view, { questions: [], reply, savedAt: Date.now() });
}

/**
 * @param {{ sessionId: string; toolUseId: string }} view
 * @param {Draft} draft
 */
function store(view, draft) {
  const key = keyOf(view);
  const text = JSON.stringify(draft);
  memory.set(key, text);
  try {
    localStorage.setItem(key, text);
  } catch {
    // full or disabled: kept in memory for this tab
  }
}

/** @param {{ sessionId: string; toolUseId: string }} view */
export function clearDraft(view) {
  const key = keyOf(view);
  memory.delete(key);
  try {
    localStorage.removeItem(key);
  } catch {
    // nothing to clear
  }
}

/** Drops drafts of questions that ended while no page was open to see it. */
export function dropStaleDrafts(now = Date.now()) {
  try {
    for (let index = localStorage.length - 1; index >= 0; index--) {
      const key = localStorage.key(index);
      if (!key?.startsWith(PREFIX)) continue;
      let savedAt = 0;
      try {
        savedAt = Number(JSON.parse(localStorage.getItem(key) ?? '{}').savedAt) || 0;
      } catch {
        // unreadable: dropped
      }
      if (now - savedAt > MAX_AGE_MS) localStorage.removeItem(key);
    }
  } catch {
    // storage disabled
  }
}
