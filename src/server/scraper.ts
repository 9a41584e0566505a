import { Agent, request } from 'undici';
import { now } from '../time.js';
import { ExpositionError, parseExposition } from './exposition.js';
import type { EngineMetric, EngineName } from './engines.js';
import { engineRows, snapshotOf, type Snapshot } from './snapshot.js';
import type { ServerSection } from './types.js';
import { unavailableSection, windowSection, type WindowBounds } from './window.js';

export interface ScraperOptions {
  url: string;
  /** Sent only when the URL's host may receive the target's credentials (src/server/target.ts). */
  headers: Record<string, string>;
  intervalMs: number;
  /** Per scrape: a slow /metrics is given up on, never waited for by the load. */
  timeoutMs?: number;
  /** The benchmarked model: series labelled with another model are left out (snapshot.ts samplesOfModel). */
  model?: string;
}

/** An exposition larger than this is not read: /metrics of a real engine is tens of kB. */
const MAX_BODY_BYTES = 8 * 2 ** 20;
/** Snapshots kept: a day at 1 s, so memory stays bounded on any run. */
const MAX_SNAPSHOTS = 86_400;

/**
 * Reads the target's /metrics every interval on its own single connection (never the load's
 * pool), at most one scrape in flight, each bounded by its own timeout. The first scrape
 * decides whether there is a server view: no /metrics, a body that is not an exposition, or
 * none of the names the mapping table knows, each end scraping with a note (not an error).
 */
export class Scraper {
  private readonly snaps: Snapshot[] = [];
  private readonly agent = new Agent({ connections: 1, pipelining: 1 });
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private rows: EngineMetric[] | undefined;
  private engine: EngineName | null = null;
  private note: string | undefined;
  private failures = 0;
  private readonly timeoutMs: number;
  private stopped = false;

  constructor(private readonly o: ScraperOptions) {
    this.timeoutMs = o.timeoutMs ?? Math.min(2000, Math.max(250, o.intervalMs * 0.8));
  }

  /**
   * Scrapes at once and then every interval, without waiting: the load never waits for
   * /metrics. A first scrape that fails ends the scraping (see failed()).
   */
  start(): void {
    const tick = () => {
      if (this.note !== undefined) return clearInterval(this.timer);
      if (this.inFlight === undefined) this.inFlight = this.scrape().finally(() => (this.inFlight = undefined));
    };
    tick();
    this.timer = setInterval(tick, this.o.intervalMs);
    this.timer.unref();
  }

  /** One last scrape (the window's end is covered), then stop and close the connection. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.inFlight;
    if (this.note === undefined && this.rows !== undefined) await this.scrape();
    await this.agent.close();
  }

  /** The scrapes so far, oldest first. */
  get snapshots(): readonly Snapshot[] {
    return this.snaps;
  }

  /** The section over the window; call after stop(). */
  section(b: WindowBounds): ServerSection {
    const head = { url: this.o.url, engine: this.engine, interval_s: this.o.intervalMs / 1000 };
    if (this.note !== undefined) return unavailableSection(head, this.note);
    const section = windowSection(this.snaps, b, head);
    return this.failures > 0
      ? { ...section, note: `${this.failures} scrape${this.failures === 1 ? '' : 's'} failed or timed out and left gaps` }
      : section;
  }

  private async scrape(): Promise<void> {
    let text: string;
    const sent = now();
    try {
      const res = await request(this.o.url, {
        method: 'GET',
        headers: { ...this.o.headers, accept: 'text/plain' },
        dispatcher: this.agent,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      if (res.statusCode < 200 || res.statusCode >= 300) {
        await res.body.dump();
        return this.failed(`no metrics at ${this.o.url} (HTTP ${res.statusCode})`);
      }
      const length = Number(res.headers['content-length'] ?? 0);
      if (length > MAX_BODY_BYTES) {
        await res.body.dump();
        return this.failed(`${this.o.url} answered ${length} bytes, more than the ${MAX_BODY_BYTES / 2 ** 20} MB read`);
      }
      text = await readCapped(res.body);
    } catch (e) {
      // A timeout while the body streams is a DOMException whose `code` is a number (23): the name says it.
      const code = (e as { code?: unknown }).code;
      const name = (e as Error).name;
      const why =
        name === 'TimeoutError' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT'
          ? `no complete answer within ${this.timeoutMs} ms`
          : typeof code === 'string'
            ? code
            : name || 'error';
      return this.failed(`no metrics at ${this.o.url} (${why})`);
    }
    const t = now();
    try {
      const families = parseExposition(text);
      if (this.rows === undefined) {
        const { engine, rows } = engineRows(families);
        if (engine === null || rows.length === 0)
          return this.failed(`${this.o.url} exposes none of the vLLM, SGLang, TGI or llama.cpp metrics loadgate reads`);
        this.engine = engine;
        this.rows = rows;
      }
      if (this.snaps.length < MAX_SNAPSHOTS) this.snaps.push(snapshotOf(t, families, this.rows, sent, this.o.model));
    } catch (e) {
      if (!(e instanceof ExpositionError)) throw e;
      return this.failed(`${this.o.url} is not a Prometheus text exposition (${e.message})`);
    }
  }

  /** Before the first good scrape a failure ends the view; after it, a failure is a gap. */
  private failed(note: string): void {
    if (this.rows === undefined) this.note = note;
    else this.failures++;
  }
}

async function readCapped(body: AsyncIterable<Buffer>): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw Object.assign(new Error('too large'), { code: 'body larger than 8 MB' });
    parts.push(chunk);
  }
  return Buffer.concat(parts).toString('utf8');
}
