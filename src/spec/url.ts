/**
 * What is wrong with a target URL (the spec's target.url, `--target-url`, `--baseline-url`, the
 * Action's target-url), as the middle of a one-line message, or undefined when it is usable.
 * One check for every way a URL comes in, so none of them lets through what another refuses.
 */
export function targetUrlProblem(url: string): string | undefined {
  if (url === 'sim') return undefined;
  if (!URL.canParse(url)) return `${quote(url)} is not a URL`;
  const u = new URL(url);
  // `ftp://h` is a URL of the wrong kind; `htp:/x` or `host:8000/v1` parse as URLs but were not meant as any.
  if (!['http:', 'https:'].includes(u.protocol)) return `${quote(url)} is not ${url.includes('://') ? 'an http(s) URL' : 'a URL'}`;
  // The URL lands in the result, the reports and the logs: a password in it would leak there,
  // and fetch does not send it as Authorization anyway. Only the host is quoted, never the secret.
  if (u.username || u.password) return `contains user:password@ credentials (for host ${u.host})`;
  // API paths are appended to the URL's path: a query would end up inside it (`/v1?key=x/models`),
  // and it is where keys are put. Not quoted, for the same reason.
  if (u.search || u.hash) return `contains a ?query or #fragment (for host ${u.host})`;
  return undefined;
}

/** The URL problem that is about credentials (the fix is a different one: the key goes in an environment variable). */
export const isCredentialProblem = (problem: string): boolean => problem.startsWith('contains ');

/** Literal loopback names and addresses only: nothing is resolved, so DNS cannot smuggle a host in. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** Whether a target URL (or "sim", the embedded simulator) is served from this machine's loopback. */
export const isLoopbackTarget = (url: string): boolean => url === 'sim' || (URL.canParse(url) && isLoopback(new URL(url).hostname));

const quote = (s: string) => JSON.stringify(s.length > 60 ? `${s.slice(0, 57)}...` : s);
