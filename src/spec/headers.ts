/**
 * What undici will send as a header, checked when the spec is read, so `validate` refuses what
 * a run could not send: undici throws on an invalid name or value (the run would wait out its
 * whole ready_timeout on "UND_ERR_INVALID_ARG"), and the framing headers it computes itself
 * would, if set, break every request (a content-length that does not match the body).
 */

/** RFC 9110 token characters: a header name is one or more of them (undici's own check). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A field value: visible characters, space, tab and obs-text; never CR, LF or NUL (undici: headerCharRegex). */
const BAD_VALUE_CHAR = /[^\t\x20-\x7e\x80-\xff]/;

/** Set by loadgate or the connection, never by a spec: the reason each is refused. */
const RESERVED: Record<string, string> = {
  host: 'is set from target.url',
  'content-length': 'is computed from each request body',
  'transfer-encoding': 'is chosen by the HTTP client',
  connection: 'is managed by the HTTP client (keep-alive)',
  'keep-alive': 'is managed by the HTTP client',
  upgrade: 'would switch protocols',
  expect: 'is not supported by the HTTP client',
  te: 'is chosen by the HTTP client',
};

/** Why `name: value` cannot be sent, as the end of "target.headers.<name> …"; null when it can. */
export function headerProblem(name: string, value: string): string | null {
  if (!TOKEN.test(name)) return "is not a valid header name; expected letters, digits and !#$%&'*+-.^_`|~ only";
  const reserved = RESERVED[name.toLowerCase()];
  if (reserved !== undefined) return `cannot be set: it ${reserved}; expected another header`;
  if (BAD_VALUE_CHAR.test(value))
    return 'has a line break or control character in its value; expected one line of visible characters (a header cannot hold CR or LF)';
  return null;
}
