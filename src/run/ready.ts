import { request } from 'undici';

/** What the readiness check learned: the models the server lists (null when it gave no readable list). */
export type Readiness = { models: string[] | null } | { interrupted: true };

/** One probe's own bound: a probe that hangs (headers, then nothing) must not eat the whole wait. */
const PROBE_TIMEOUT_MS = 5000;
/** A model list is a few kB (a gateway's, a few hundred kB); more is not a list worth reading. */
const MAX_MODELS_BYTES = 8 * 1024 * 1024;

/** Who sent what: a 401 means one thing with a key and another without. */
export interface ReadyAuth {
  /** The environment variable the key came from (target.api_key_env), when a key is sent. */
  keyEnv?: string;
  /** A credential header (e.g. x-api-key from target.headers) is sent. */
  credentialHeader?: boolean;
}

/** A readiness answer that waiting will not change (a rejected key): the run stops at once. */
export class NotReadyError extends Error {}

/**
 * Waits until the target answers GET {base}/models with a 2xx — the cheapest request every
 * OpenAI-compatible server supports — polling with a capped backoff, and returns the models it
 * lists. A 401 or 403 is final (retrying a rejected key for the whole ready_timeout only
 * delays the same answer). Aborting `signal` ends the wait at once. Throws a one-line
 * error naming the URL and the last thing seen when the deadline passes.
 */
export async function waitForReady(
  baseUrl: string,
  timeoutMs: number,
  headers: Record<string, string>,
  o: { signal?: AbortSignal; auth?: ReadyAuth } = {},
): Promise<Readiness> {
  const url = `${baseUrl.replace(/\/+$/, '')}/models`;
  const deadline = Date.now() + timeoutMs;
  let last: string;
  let pause = 100;
  for (;;) {
    if (o.signal?.aborted) return { interrupted: true };
    const probeMs = Math.max(1, Math.min(PROBE_TIMEOUT_MS, deadline - Date.now()));
    const signals = [AbortSignal.timeout(probeMs), ...(o.signal ? [o.signal] : [])];
    try {
      const res = await request(url, { method: 'GET', headers, signal: AbortSignal.any(signals) });
      const body = await readCapped(res.body);
      if (res.statusCode >= 200 && res.statusCode < 300) return { models: modelIds(body) };
      if (res.statusCode === 401 || res.statusCode === 403) throw new NotReadyError(rejected(url, res.statusCode, o.auth));
      last = `HTTP ${res.statusCode}`;
    } catch (e) {
      if (e instanceof NotReadyError) throw e;
      if (o.signal?.aborted) return { interrupted: true };
      const err = e as NodeJS.ErrnoException;
      last = err.name === 'TimeoutError' || err.code === 'UND_ERR_ABORTED' ? `no answer within ${probeMs} ms` : (err.code ?? err.message);
    }
    if (Date.now() + pause > deadline) {
      throw new Error(
        `target ${url} was not ready within ${timeoutMs / 1000}s (last: ${last}); check the URL or raise target.ready_timeout`,
      );
    }
    if (await sleep(pause, o.signal)) return { interrupted: true };
    pause = Math.min(pause * 2, 2000);
  }
}

function rejected(url: string, status: number, auth: ReadyAuth = {}): string {
  if (auth.keyEnv !== undefined)
    return `the server rejected the API key (HTTP ${status}) at ${url}; expected a key it accepts in ${auth.keyEnv} (target.api_key_env)`;
  if (auth.credentialHeader)
    return `the server rejected the credentials (HTTP ${status}) at ${url}; expected credentials it accepts in target.headers`;
  return `the server requires an API key (HTTP ${status}) at ${url}; expected target.api_key_env naming the variable that holds it`;
}

/** The body as text, or null past the cap (then the list is not read, and the rest is dropped). */
async function readCapped(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string | null> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_MODELS_BYTES) {
      body.destroy();
      return null;
    }
    parts.push(chunk);
  }
  return Buffer.concat(parts).toString('utf8');
}

/** `{"data":[{"id":"m"}, …]}` (OpenAI's list shape) → the ids; anything else → null: not known. */
function modelIds(body: string | null): string[] | null {
  if (body === null) return null;
  try {
    const data = (JSON.parse(body) as { data?: unknown } | null)?.data;
    if (!Array.isArray(data)) return null;
    return data.flatMap((m: unknown) => {
      const id = m && typeof m === 'object' ? (m as { id?: unknown }).id : undefined;
      return typeof id === 'string' ? [id] : [];
    });
  } catch {
    return null;
  }
}

/** Resolves true when aborted first. */
function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (aborted: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(aborted);
    };
    const onAbort = () => done(true);
    const timer = setTimeout(() => done(false), ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
