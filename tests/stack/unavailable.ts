// One rule for a test that needs what a machine may lack (Chromium, Caddy, root to mount a disk):
// on a developer's machine it is skipped and says why; in CI it fails, so nothing goes untested there.

/** Says that `what` cannot run here because of `reason`: a warning, or in CI (`CI` set) an error. */
export function cannotRunHere(what: string, reason: string): void {
  if (process.env.CI) throw new Error(`${reason}: ${what} cannot run, and CI must not skip them`);
  console.warn(`SKIPPING ${what}: ${reason}`);
}
