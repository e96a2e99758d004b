// The end of Claude's turn and waits in the terminal in the CLI's words (src/cli/turn-end-text.ts),
// how each ended (src/cli/events.ts), what the reply prompt takes as done (src/cli/flow.ts) and the
// reply's text from the command line (src/cli/reply.ts): one line each, model text left for the
// caller to mark, and every way a turn's end can end said in words that are true for it.
import { describe, expect, it } from 'vitest';
import { settledLineText, settledText } from '../../src/cli/events.js';
import { isDone } from '../../src/cli/flow.js';
import { replyText } from '../../src/cli/reply.js';
import { awayLines, isLastReply, LAST_REPLY_NOTE, replyOutcome, terminalWaitKind, terminalWaitLine, turnEndLine } from '../../src/cli/turn-end-text.js';
import { describeSource, type HistoryLine } from '../../src/history-file.js';
import type { AskView, TurnEnd, TurnEndReach } from '../../src/protocol.js';
import { askView } from '../stack/views.js';

const turnEnd = (more: Partial<TurnEnd> = {}): TurnEnd => ({ lastMessage: 'Done: the tests pass.', repliesInARow: 0, replyLimit: 8, ...more });

describe('turnEndLine', () => {
  it('is the start of Claude\'s last message on one line, shortened with an ellipsis, unmarked for the caller to mark', () => {
    expect(turnEndLine(turnEnd())).toBe('Claude finished: Done: the tests pass.');
    expect(turnEndLine(turnEnd({ lastMessage: '## Summary\n\n- split   the lexer\n- \u001b[2Jadded tests\n' }))).toBe('Claude finished: ## Summary - split the lexer - \u001b[2Jadded tests');
    const long = turnEndLine(turnEnd({ lastMessage: 'word '.repeat(100) }));
    expect(long).toHaveLength('Claude finished: '.length + 120);
    expect(long.endsWith('word…')).toBe(true);
    expect(turnEndLine(turnEnd({ lastMessage: ' \n ' }))).toBe('Claude finished (it said nothing)');
  });
});

describe('terminalWaitLine', () => {
  it('says what Claude Code waits for, by its notification type, and its message on one line', () => {
    expect(terminalWaitKind('idle_prompt')).toBe('Claude waits for your next prompt');
    expect(terminalWaitKind('permission_prompt')).toBe('a permission dialog waits');
    expect(terminalWaitKind('elicitation_dialog')).toBe('an MCP server asks for input');
    expect(terminalWaitKind('auth_success')).toBe('auth_success');
    expect(terminalWaitLine({ kind: 'idle_prompt', message: 'Claude is waiting\nfor your input' })).toBe('waiting for you in the terminal (Claude waits for your next prompt): Claude is waiting for your input');
    expect(terminalWaitLine({ kind: 'idle_prompt', message: '' })).toBe('waiting for you in the terminal (Claude waits for your next prompt)');
  });
});

describe('the last reply in a row', () => {
  it('is the one after which Claude Code would not let the turn go on again', () => {
    expect(isLastReply({ repliesInARow: 0, replyLimit: 8 })).toBe(false);
    expect(isLastReply({ repliesInARow: 7, replyLimit: 8 })).toBe(true);
    expect(isLastReply({ repliesInARow: 0, replyLimit: 1 })).toBe(true);
  });

  it('replyOutcome: what `askbridge reply` prints for a reply, the last one in a row, and done', () => {
    expect(replyOutcome({ status: 'replied', turnEnd: turnEnd({ repliesInARow: 2 }) })).toBe('replied: Claude goes on');
    expect(replyOutcome({ status: 'replied', turnEnd: turnEnd({ repliesInARow: 7 }) })).toBe(`replied: Claude goes on (${LAST_REPLY_NOTE})`);
    expect(replyOutcome({ status: 'done', turnEnd: turnEnd() })).toBe('done: Claude stops');
  });
});

describe('awayLines', () => {
  const everywhere: TurnEndReach = { reach: 'everywhere', gaps: [] };
  it('says what being away means where the end of a turn reaches askbridge', () => {
    expect(awayLines({ away: true, turnEnds: everywhere }, 'askbridge')).toBe("away: on (the end of each of Claude's turns waits for your reply: the page, `askbridge watch`, `askbridge reply`)");
    expect(awayLines({ away: false, turnEnds: everywhere }, 'askbridge')).toBe("away: off (Claude's turns end in the terminal, as usual)");
  });

  it('names the people away on their own pages', () => {
    expect(awayLines({ away: false, turnEnds: everywhere, awayPeople: ['alice', 'bob'] }, 'askbridge').split('\n')).toEqual([
      "away: off (Claude's turns end in the terminal, as usual)",
      'away on their own pages: alice, bob (the end of a turn for them waits for a reply)',
    ]);
  });

  it('promises nothing the wiring cannot deliver: where a turn end reaches nowhere, the one command that adds it', () => {
    const nowhere: TurnEndReach = { reach: 'nowhere', gaps: [], fix: 'askbridge install --user' };
    expect(awayLines({ away: true, turnEnds: nowhere }, 'askbridge')).toBe('away: on (but the end of a turn does not reach askbridge here, so it never waits for your reply: run `askbridge install --user`)');
    const partly: TurnEndReach = { reach: 'partly', gaps: [{ path: '/home/alice/shop/.claude/settings.local.json', missing: ['Stop', 'UserPromptSubmit', 'Notification'], fix: "askbridge install --project '/home/alice/shop'" }] };
    expect(awayLines({ away: true, turnEnds: partly }, 'askbridge').split('\n')).toEqual([
      "away: on (the end of each of Claude's turns waits for your reply, where it reaches askbridge: the page, `askbridge watch`, `askbridge reply`)",
      "  not from /home/alice/shop/.claude/settings.local.json (no Stop, UserPromptSubmit, Notification): run `askbridge install --project '/home/alice/shop'`",
    ]);
  });
});

const view = (more: Partial<AskView>): AskView => askView({
  id: 'a1',
  sessionId: 's1',
  toolUseId: 'turn-end-1',
  cwd: '/home/alice/projects/shop',
  createdAt: 0,
  expiresAt: 1,
  timeout: { action: 'terminal', summary: 'Claude stops, and its session waits at its prompt' },
  status: 'pending',
  questions: [],
  turnEnd: turnEnd(),
  ...more,
});

describe('how a turn\'s end ended', () => {
  it('in words true for each way, from the view (listen, watch) and from its history line alike', () => {
    const cases: Array<[Partial<AskView>, string]> = [
      [{ status: 'replied', source: { kind: 'person', client: 'cli' }, reply: 'Go on' }, 'replied by a person (cli): Claude went on'],
      [{ status: 'done', source: { kind: 'person', client: 'page' } }, 'done by a person (page): Claude stopped'],
      [{ status: 'done', source: { kind: 'policy', action: 'terminal', trigger: 'reply-limit' } }, 'Claude stopped: Claude Code lets a turn go on only so many times in a row'],
      [{ status: 'handed-to-terminal', source: { kind: 'policy', action: 'terminal', trigger: 'timeout' } }, 'nobody replied in time: Claude stopped'],
      [{ status: 'handed-to-terminal', source: { kind: 'back' } }, 'Claude stopped (the person came back)'],
      [{ status: 'handed-to-terminal', source: { kind: 'daemon-stopped' } }, 'Claude stopped (the daemon stopped)'],
      [{ status: 'cancelled', source: { kind: 'terminal' } }, 'the person typed in the terminal: their prompt went to Claude'],
      [{ status: 'cancelled', source: { kind: 'hook-gone' } }, 'withdrawn, Claude Code stopped waiting (Esc in its terminal)'],
      [{ status: 'cancelled', source: { kind: 'session-ended' } }, 'withdrawn, the session ended'],
    ];
    for (const [more, words] of cases) {
      const settled = view(more);
      expect(settledText(settled)).toBe(words);
      expect(settledLineText(historyLine(settled))).toBe(words);
    }
  });

  it('a wait in the terminal ends when the session moves on, or with it', () => {
    const wait = { turnEnd: undefined, terminalWait: { kind: 'idle_prompt', message: 'Claude is waiting for your input' } };
    expect(settledText(view({ ...wait, status: 'cancelled', source: { kind: 'terminal' } }))).toBe('the session moved on');
    expect(settledText(view({ ...wait, status: 'cancelled', source: { kind: 'session-ended' } }))).toBe('withdrawn, the session ended');
  });
});

/** The history line the daemon writes for a settled turn end, with history's own words for who or what settled it. */
function historyLine(settled: AskView): HistoryLine {
  const { source, detail } = describeSource(settled);
  return {
    id: settled.id,
    sessionId: settled.sessionId,
    toolUseId: settled.toolUseId,
    project: settled.cwd,
    askedAt: '2025-01-01T00:00:00.000Z',
    finishedAt: '2025-01-01T00:01:00.000Z',
    status: settled.status,
    source,
    ...(detail === undefined ? {} : { detail }),
    questions: [],
    turnEnd: { said: settled.turnEnd!.lastMessage },
    ...(settled.reply === undefined ? {} : { reply: settled.reply }),
  };
}

describe('the reply prompt', () => {
  it('takes an empty line or /done as done, and anything else as the reply', () => {
    expect(isDone('')).toBe(true);
    expect(isDone('   ')).toBe(true);
    expect(isDone(' /done ')).toBe(true);
    expect(isDone('/done now')).toBe(false);
    expect(isDone('done')).toBe(false);
  });
});

describe('replyText', () => {
  it('joins the words as given; refuses a blank or too long reply as a usage error', () => {
    expect(replyText(['Yes,', 'deploy  it'], 'askbridge')).toBe('Yes, deploy  it');
    expect(() => replyText(['  ', ''], 'askbridge')).toThrow(expect.objectContaining({ exitCode: 2, message: expect.stringMatching(/^the reply is empty/) }));
    expect(() => replyText(['x'.repeat(20_001)], 'askbridge')).toThrow(expect.objectContaining({ exitCode: 2, message: 'the reply is 20001 characters long, and a reply holds at most 20000: shorten it' }));
    expect(replyText(['x'.repeat(20_000)], 'askbridge')).toHaveLength(20_000);
  });
});
