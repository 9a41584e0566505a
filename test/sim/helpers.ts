import http, { type IncomingHttpHeaders } from 'node:http';
import { now } from '../../src/time.js';

/** A plain loopback client: what a load generator would see, with arrival times from now(). */
export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  tSend: number;
  tHeaders: number;
  /** SSE `data:` payloads in order, each with the time the chunk completing it arrived. */
  events: { t: number; data: string }[];
  body: string;
  /** The socket failed mid-response (e.g. ECONNRESET). */
  error?: string;
}

export const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });

export function request(
  origin: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  onEvent?: (data: string) => void,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, origin);
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const tSend = now();
    const req = http.request(url, { method, agent, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      const reply: Reply = { status: res.statusCode!, headers: res.headers, tSend, tHeaders: now(), events: [], body: '' };
      let pending = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const t = now();
        reply.body += chunk;
        pending += chunk;
        let cut: number;
        while ((cut = pending.indexOf('\n\n')) >= 0) {
          const event = pending.slice(0, cut);
          pending = pending.slice(cut + 2);
          if (!event.startsWith('data: ')) continue;
          reply.events.push({ t, data: event.slice(6) });
          onEvent?.(event.slice(6));
        }
      });
      res.on('end', () => resolve(reply));
      res.on('error', (err) => resolve({ ...reply, error: (err as NodeJS.ErrnoException).code ?? err.message }));
      res.on('aborted', () => resolve({ ...reply, error: 'aborted' }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

export const post = (origin: string, path: string, body: unknown, headers?: Record<string, string>) =>
  request(origin, 'POST', path, body, headers);

/** Starts a stream; `started` resolves once its first output token has reached the client. */
export function streaming(
  origin: string,
  path: string,
  body: unknown,
  headers?: Record<string, string>,
): { reply: Promise<Reply>; started: Promise<void> } {
  let started!: () => void;
  const first = new Promise<void>((resolve) => (started = resolve));
  const reply = request(origin, 'POST', path, body, headers, (data) => {
    if (data.includes('" tok"')) started();
  });
  return { reply, started: first };
}

/** Events that carry output text (chat delta.content or completions text), as a client counts tokens. */
export function contentEvents(reply: Reply): { t: number; data: string }[] {
  return reply.events.filter((e) => {
    if (e.data === '[DONE]') return false;
    try {
      const choice = JSON.parse(e.data).choices?.[0];
      return Boolean(choice?.delta?.content ?? choice?.text);
    } catch {
      return false;
    }
  });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests poke at parsed chunks freely
export function parsedEvents(reply: Reply): any[] {
  return reply.events.filter((e) => e.data !== '[DONE]').map((e) => JSON.parse(e.data));
}

export function words(n: number, tag = 'w'): string {
  return Array.from({ length: n }, (_, i) => `${tag}${i}`).join(' ');
}

export async function metric(origin: string, name: string): Promise<number> {
  const text = (await request(origin, 'GET', '/metrics')).body;
  const line = text.split('\n').find((l) => l.startsWith(name));
  if (!line) throw new Error(`no metric ${name}`);
  return Number(line.slice(line.lastIndexOf(' ') + 1));
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const chatBody = (content: string, extra: object = {}) => ({
  model: 'sim-8b',
  messages: [{ role: 'user', content }],
  stream: true,
  stream_options: { include_usage: true },
  ...extra,
});
