/** Outcome details end up in logs, result files and PR comments: keep them short, one line and secret-free. */

const MAX_DETAIL = 200;

/**
 * Returns a redactor for detail text. Servers do echo credentials back ("Incorrect API key
 * provided: sk-..."), so every configured secret is replaced wherever it appears.
 */
export function detailSanitizer(secrets: readonly string[]): (text: string) => string {
  // Longest first, so a secret that contains another is removed whole.
  const list = secrets.filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const s of list) out = out.split(s).join('[redacted]');
    out = out.replace(/Bearer\s+\S+/gi, 'Bearer [redacted]');
    // Collapse control characters and whitespace runs into single spaces.
    // eslint-disable-next-line no-control-regex -- control characters are exactly what this strips
    out = out.replace(/[\s\x00-\x1f\x7f]+/g, ' ').trim();
    return out.length > MAX_DETAIL ? out.slice(0, MAX_DETAIL - 1) + '…' : out;
  };
}
