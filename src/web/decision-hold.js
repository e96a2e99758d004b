// @ts-check
// The hold of a card's decision buttons. A decision cannot be taken back, so a click or key aimed at
// something else must not land on one: the buttons stay off for a moment when the card takes the
// place of one that just left (a second click meant for the one before), and again whenever what is
// above them changes height and moves them under a pointer already on its way (the session's
// context arrives about a second after the card, as long as the model made it). They are also off
// while the card's own request is out.

/** How long the buttons stay off after the card came or they moved. */
export const DECISION_HOLD_MS = 700;

/**
 * @param {HTMLButtonElement[]} buttons the card's decisions
 * @param {HTMLElement[]} above what lies above them in the card: a change of its height moves them
 * @param {{ replacing?: boolean }} how `replacing`: the card took the place of one that just left
 */
export function holdDecisions(buttons, above, how) {
  let heldUntil = 0;
  let busy = false;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  const show = () => {
    for (const button of buttons) button.disabled = busy || Date.now() < heldUntil;
  };
  const hold = () => {
    heldUntil = Date.now() + DECISION_HOLD_MS;
    show();
    clearTimeout(timer);
    timer = setTimeout(show, DECISION_HOLD_MS);
  };
  if (how.replacing) hold();

  // Heights as last laid out, once the card is in the page: its first layout moves nothing.
  /** @type {Map<Element, number>} */
  const heights = new Map();
  const observer = new ResizeObserver((entries) => {
    let moved = false;
    for (const entry of entries) {
      if (!entry.target.isConnected) continue;
      const height = entry.borderBoxSize[0]?.blockSize ?? entry.contentRect.height;
      const before = heights.get(entry.target);
      heights.set(entry.target, height);
      if (before !== undefined && before !== height) moved = true;
    }
    if (moved) hold();
  });
  for (const element of above) observer.observe(element);

  return {
    /** Whether a decision may be taken now. */
    ready: () => !busy && Date.now() >= heldUntil,
    /** @param {boolean} isBusy the card's request is out */
    setBusy(isBusy) {
      busy = isBusy;
      show();
    },
  };
}
