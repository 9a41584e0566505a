/*
 * Every string that came from a result — model and spec names, URLs, error details from the
 * server, validity messages — passes through one of these before it reaches a report. A result
 * file is input: a fork's pull request controls its spec and the server it measured.
 */

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for HTML or SVG element content and attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

/**
 * Inline markdown text safe in a paragraph or a table cell: one line; HTML made inert; the
 * characters that start emphasis, code, links, strikethrough or cell breaks backslash-escaped;
 * @mentions and #references broken with a zero-width space so a PR comment pings nobody.
 */
export function escapeMarkdown(s: string): string {
  return s
    .replace(/\s+/g, ' ')
    .replace(/[&<>]/g, (c) => ENTITIES[c])
    .replace(/[\\`*_[\]|~]/g, '\\$&')
    .replace(/[@#]/g, '$&\u200b');
}

/**
 * One line of a log (the Action's, a terminal), whatever the text holds. A CI runner executes a
 * log line that starts with `::` as a workflow command (`::add-mask::`, `::warning::`, and
 * `::stop-commands::` turns the rest off), and a terminal executes ESC sequences: so line
 * breaks become a visible `⏎`, every `::` is broken with a zero-width space (no line can then
 * start a command), and other control characters (ESC, CSI, NUL…) are shown as `\xNN`.
 * Every string from a spec, a result or a server that reaches a log goes through here.
 */
export function escapeLogLine(s: string): string {
  return (
    s
      .replace(/\r\n|[\r\n\u0085\u2028\u2029]/g, ' ⏎ ')
      // eslint-disable-next-line no-control-regex -- control characters are exactly what this neutralises
      .replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)
      .replace(/::/g, ':\u200b:')
  );
}
