// Who an ask is for: the people its route names (fixed when it opened, the user config's `route`),
// or everyone when it has none. The local CLI, which holds the daemon's token, is the daemon's own
// user and may see and decide everything; a page, a chat or a notification only what is routed to
// the person it was paired for. Checked on the daemon for every list, event and decision.
import type { Decider, RouteView } from './protocol.js';

/** Whoever looks: the local CLI, or a person's device or chat (`person` absent: paired with no person named). */
export type Viewer = { kind: 'local' } | { kind: 'person'; person?: string | undefined };

/** `view`: an ask's view, or a history line, which keeps the route it opened with. */
export function isRoutedTo(view: { route?: Pick<RouteView, 'people'> | undefined }, viewer: Viewer): boolean {
  if (!view.route || viewer.kind === 'local') return true;
  return viewer.person !== undefined && view.route.people.includes(viewer.person);
}

/** Whether one of these viewers (the pages in view) may see an ask of this route: any of them, for no route. */
export function someoneSees(viewers: readonly Viewer[], route?: Pick<RouteView, 'people'>): boolean {
  return route ? viewers.some((viewer) => isRoutedTo({ route }, viewer)) : viewers.length > 0;
}

/** The viewer a decision comes from: the CLI is local; every other client is a person's. */
export function viewerOf(by: Decider): Viewer {
  return by.client === 'cli' ? { kind: 'local' } : { kind: 'person', person: by.person };
}
