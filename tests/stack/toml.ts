// TOML's basic string as its grammar (TOML 1.0) has it, to check what askbridge writes into Codex's
// config.toml without a TOML library: quotes around characters TOML allows raw (tab, and everything
// but the quotation mark, the backslash and the other control characters, DEL included), and escapes.

/** Whether `text` is exactly one TOML basic string. */
export function isTomlBasicString(text: string): boolean {
  if (text.length < 2 || !text.startsWith('"') || !text.endsWith('"')) return false;
  const body = text.slice(1, -1);
  for (let at = 0; at < body.length; at += 1) {
    const code = body.charCodeAt(at);
    if (body[at] === '\\') {
      const sequence = /^\\(?:[btnfr"\\]|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8})/.exec(body.slice(at))?.[0];
      if (sequence === undefined) return false;
      at += sequence.length - 1;
    } else if (body[at] === '"' || (code < 0x20 && code !== 0x09) || code === 0x7f) return false;
  }
  return true;
}
