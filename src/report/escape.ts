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
