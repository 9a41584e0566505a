import { request } from 'undici';

/**
 * Waits until the target answers GET {base}/models with a 2xx — the cheapest request every
 * OpenAI-compatible server supports — polling with a capped backoff. Throws a one-line error
 * naming the URL and the last thing seen when the deadline passes.
 */
export async function waitForReady(baseUrl: string, timeoutMs: number, headers: Record<string, string>): Promise<void> {
  const url = `${baseUrl.replace(/\/+$/, '')}/models`;
  const deadline = Date.now() + timeoutMs;
  let last: string;
  let pause = 100;
  for (;;) {
    try {
      const res = await request(url, { method: 'GET', headers, headersTimeout: 5000, bodyTimeout: 5000 });
      await res.body.dump();
      if (res.statusCode >= 200 && res.statusCode < 300) return;
      last = `HTTP ${res.statusCode}`;
    } catch (e) {
      last = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    }
    if (Date.now() + pause > deadline) {
      throw new Error(
        `target ${url} was not ready within ${timeoutMs / 1000}s (last: ${last}); check the URL or raise target.ready_timeout`,
      );
    }
    await new Promise((r) => setTimeout(r, pause));
    pause = Math.min(pause * 2, 2000);
  }
}
