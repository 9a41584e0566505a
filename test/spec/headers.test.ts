import { parseSpec } from '../../src/spec/load.js';
import { messageOf } from './helpers.js';

const spec = (headers: string) => `target:\n  url: http://127.0.0.1:8000/v1\n  model: m\n  headers:\n${headers}\n`;

describe('target.headers', () => {
  test('${VAR} references are filled from the environment while the spec and its hash keep the reference', () => {
    const a = parseSpec(spec('    api-key: "${GW_KEY}"\n    x-team: "infra-${TEAM}"'), 'h.yml', { GW_KEY: 'secret-1', TEAM: 'blue' });
    const b = parseSpec(spec('    api-key: "${GW_KEY}"\n    x-team: "infra-${TEAM}"'), 'h.yml', { GW_KEY: 'secret-2', TEAM: 'blue' });
    expect(a.headers).toEqual({ 'api-key': 'secret-1', 'x-team': 'infra-blue' });
    expect(a.spec.target.headers['api-key']).toBe('${GW_KEY}');
    expect(a.hash).toBe(b.hash);
    expect(JSON.stringify(a.spec)).not.toContain('secret-1');
  });

  test('a credential written literally into the spec is refused', () => {
    const msg = messageOf(() => parseSpec(spec('    Authorization: "Bearer sk-live-123"'), 'h.yml', {}));
    expect(msg).toBe(
      'h.yml: target.headers.Authorization holds a credential written into the spec; expected a reference such as "${MY_KEY}" to an environment variable, or target.api_key_env',
    );
    expect(msg).not.toContain('sk-live-123');
  });

  test('a reference to a missing or empty variable names the header and the variable', () => {
    expect(messageOf(() => parseSpec(spec('    x-api-key: "${NOPE}"'), 'h.yml', {}))).toBe(
      'h.yml: target.headers.x-api-key refers to ${NOPE}, which is not set in the environment; export it or remove the header',
    );
    expect(messageOf(() => parseSpec(spec('    x-api-key: "${EMPTY}"'), 'h.yml', { EMPTY: '' }))).toBe(
      'h.yml: target.headers.x-api-key refers to ${EMPTY}, which is set but empty; export it or remove the header',
    );
  });

  test.each([
    [
      '    x-note: "a\\r\\nX-Injected: 1"',
      'h.yml: target.headers.x-note has a line break or control character in its value; expected one line of visible characters (a header cannot hold CR or LF)',
    ],
    [
      '    transfer-encoding: chunked',
      'h.yml: target.headers.transfer-encoding cannot be set: it is chosen by the HTTP client; expected another header',
    ],
    [
      '    Content-Length: "10"',
      'h.yml: target.headers.Content-Length cannot be set: it is computed from each request body; expected another header',
    ],
    ['    host: example.com', 'h.yml: target.headers.host cannot be set: it is set from target.url; expected another header'],
    [
      '    "bad name": x',
      "h.yml: target.headers.(a key of 8 characters) is not a valid header name; expected letters, digits and !#$%&'*+-.^_`|~ only",
    ],
  ])('a header undici would refuse, or one it sets itself, is refused at validate: %s', (header, message) => {
    expect(messageOf(() => parseSpec(spec(header), 'h.yml', {}))).toBe(message);
  });

  test('a value that becomes a line break once filled from the environment is refused, without the value', () => {
    const msg = messageOf(() => parseSpec(spec('    x-api-key: "${KEY}"'), 'h.yml', { KEY: 'sk-live-1\r\nX-Evil: 1' }));
    expect(msg).toBe(
      'h.yml: target.headers.x-api-key, once filled from the environment, has a line break or control character in its value; expected one line of visible characters (a header cannot hold CR or LF)',
    );
    expect(msg).not.toContain('sk-live');
  });
});
