// The webhooks of the user's config (`notify`), told once when a question starts waiting: ntfy,
// Slack, Discord, or any URL (a JSON POST). Each is sent in the background and retried with backoff
// a few times; nothing here is ever in an answer's way. A message holds the project, the headers and
// the link to the page: never the question text, a pairing code, the token or a key. A webhook's URL
// is its secret (a Slack key, an ntfy topic): logs name its kind and origin only. An ntfy entry with
// `actions` gets buttons: for a simple question, when the daemon has a public URL, one per option,
// each a POST of a one-tap capability (one-tap.ts) that answers with that option (its label then
// leaves the machine: ntfy's server sees it); otherwise, or when its asker holds its share of
// capabilities, one that opens the page.
import type { NotifyKind, NotifyTarget } from '../config.js';
import type { PublicUrl } from '../public-url.js';
import { noticeSubject, noticeTitle, type Notice } from './notice.js';
import { ONE_TAP_PATH } from './one-tap.js';

/** What ntfy's buttons need from the daemon: where a tap goes, and a capability per option. */
export type OneTapIssuer = {
  /** The public URL now: a tap is posted there; without one there are no such buttons (a phone could not reach this machine). */
  publicUrl: () => PublicUrl | undefined;
  /** A new capability for each of this ask's options, in order (undefined when it no longer waits, or its asker holds its share). */
  issue: (askId: string) => string[] | undefined;
};

/** A button of an ntfy notification, in ntfy's JSON publish format. */
export type NtfyAction =
  | { action: 'view'; label: string; url: string }
  | { action: 'http'; label: string; url: string; method: 'POST'; headers: Record<string, string>; body: string; clear: true };

export type WebhookLog = {
  info: (fields: Record<string, unknown>, message: string) => void;
  warn: (fields: Record<string, unknown>, message: string) => void;
};

export type WebhookOptions = {
  log: WebhookLog;
  /** For ntfy entries with `actions`; without it, they get the button that opens the page only. */
  oneTap?: OneTapIssuer;
  /** The wait before the first retry; each next one waits four times longer. */
  retryMs?: number;
  attempts?: number;
  /** How long one attempt may take, answer included. */
  timeoutMs?: number;
};

const RETRY_MS = 1_000;
const ATTEMPTS = 4;
const TIMEOUT_MS = 10_000;

/** The POST a webhook gets for a notice: where, and the JSON body. */
export function webhookRequest(target: NotifyTarget, notice: Notice, link: string, oneTap?: OneTapIssuer): { kind: NotifyKind; url: string; body: unknown } {
  const title = noticeTitle(notice);
  const subject = noticeSubject(notice);
  if (target.ntfy !== undefined) {
    // ntfy takes JSON at its root, with the topic in the body (the URL's last part).
    const url = new URL(target.ntfy);
    const topic = url.pathname.slice(url.pathname.lastIndexOf('/') + 1);
    url.pathname = url.pathname.slice(0, url.pathname.lastIndexOf('/') + 1);
    const actions = target.actions === true ? { actions: ntfyActions(notice, link, oneTap) } : {};
    return { kind: 'ntfy', url: url.href, body: { topic, title, message: subject, click: link, tags: [noticeKind(notice), ...(notice.approval?.risky ? ['warning'] : [])], ...actions } };
  }
  if (target.slack !== undefined) {
    // Slack reads <...> as links and mentions (<!channel>): model text never gets to make one.
    return { kind: 'slack', url: target.slack, body: { text: `${slackText(title)}: ${slackText(subject)}\n<${link}|Answer it>` } };
  }
  if (target.discord !== undefined) {
    // No mention may ping anyone, no link may unfurl, and markdown in model text stays text.
    return { kind: 'discord', url: target.discord, body: { content: `**${discordText(title)}**: ${discordText(subject)}\n${link}`, allowed_mentions: { parse: [] }, flags: SUPPRESS_EMBEDS } };
  }
  if (notice.approval) {
    const { tool, risky } = notice.approval;
    return { kind: 'url', url: target.url!, body: { event: 'approval_waiting', id: notice.id, project: notice.project, tool, ...(risky ? { risky } : {}), url: link } };
  }
  if (notice.turnEnd) return { kind: 'url', url: target.url!, body: { event: 'turn_end_waiting', id: notice.id, project: notice.project, url: link } };
  if (notice.terminalWait) return { kind: 'url', url: target.url!, body: { event: 'terminal_waiting', id: notice.id, project: notice.project, kind: notice.terminalWait.kind, url: link } };
  if (notice.elicitation) return { kind: 'url', url: target.url!, body: { event: 'elicitation_waiting', id: notice.id, project: notice.project, server: notice.elicitation.server, url: link } };
  return { kind: 'url', url: target.url!, body: { event: 'question_waiting', id: notice.id, project: notice.project, headers: notice.headers, url: link } };
}

/**
 * One button per option that answers a simple question with one tap, through the public URL; for
 * anything else (or without a public URL) one that opens the page on it.
 */
export function ntfyActions(notice: Notice, link: string, oneTap: OneTapIssuer | undefined): NtfyAction[] {
  const publicUrl = oneTap?.publicUrl();
  const options = notice.approval || notice.turnEnd || notice.terminalWait ? undefined : notice.options;
  if (oneTap && publicUrl && options !== undefined) {
    const url = new URL(ONE_TAP_PATH, publicUrl.origin).href;
    const capabilities = oneTap.issue(notice.id);
    if (capabilities?.length === options.length) {
      return options.map((label, index) => ({
        action: 'http',
        label,
        url,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        // In the body, never the URL: bodies are not logged, here or (usually) anywhere on the way.
        body: JSON.stringify({ capability: capabilities[index] }),
        clear: true,
      }));
    }
  }
  return [{ action: 'view', label: 'Open', url: link }];
}

/** The ntfy tag of a notice: what waits. */
function noticeKind(notice: Notice): string {
  if (notice.approval) return 'permission';
  if (notice.turnEnd) return 'turn-end';
  if (notice.terminalWait) return 'terminal';
  if (notice.elicitation) return 'elicitation';
  return 'question';
}

const SUPPRESS_EMBEDS = 1 << 2;
const slackText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const discordText = (text: string) => text.replace(/[\\`*_~|<>[\]()#@:-]/g, '\\$&');

/** Worth another try: the receiver may be back later. Anything else (a wrong URL, a refusal) will not fix itself. */
const retryable = (status: number) => status === 408 || status === 429 || status >= 500;

export function createWebhooks(options: WebhookOptions) {
  const retryMs = options.retryMs ?? RETRY_MS;
  const attempts = options.attempts ?? ATTEMPTS;
  const timeoutMs = options.timeoutMs ?? TIMEOUT_MS;
  const stopping = new AbortController();
  const timers = new Set<NodeJS.Timeout>();

  async function deliver(request: ReturnType<typeof webhookRequest>, askId: string, attempt: number): Promise<void> {
    const where = { kind: request.kind, to: new URL(request.url).origin, askId, attempt };
    let problem: string;
    let again: boolean;
    try {
      const response = await fetch(request.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(request.body),
        redirect: 'error',
        signal: AbortSignal.any([stopping.signal, AbortSignal.timeout(timeoutMs)]),
      });
      await response.body?.cancel();
      if (response.ok) {
        options.log.info(where, 'webhook told');
        return;
      }
      problem = `HTTP ${response.status}`;
      again = retryable(response.status);
    } catch (error) {
      if (stopping.signal.aborted) return;
      problem = (error as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : ((error as Error).cause as Error | undefined)?.message ?? (error as Error).message;
      again = true;
    }
    if (!again || attempt >= attempts) {
      options.log.warn({ ...where, problem }, 'webhook not told: giving up');
      return;
    }
    const delay = retryMs * 4 ** (attempt - 1);
    options.log.warn({ ...where, problem, retryInMs: delay }, 'webhook not told: trying again');
    const timer = setTimeout(() => {
      timers.delete(timer);
      void deliver(request, askId, attempt + 1);
    }, delay);
    timers.add(timer);
  }

  return {
    /** Tells every target about a question that starts waiting; returns at once. */
    send(targets: readonly NotifyTarget[], notice: Notice, link: string): void {
      if (stopping.signal.aborted) return;
      for (const target of targets) void deliver(webhookRequest(target, notice, link, options.oneTap), notice.id, 1);
    },
    /** The daemon stops: pending retries are dropped and requests under way aborted. */
    close(): void {
      stopping.abort();
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}

export type Webhooks = ReturnType<typeof createWebhooks>;
