/**
 * A strict parser of the Prometheus text exposition format (version 0.0.4), the format every
 * engine's /metrics serves. Written here rather than taken from npm: the one maintained-looking
 * package (parse-prometheus-text-format 1.1.1) drops the labels and the _sum/_count of
 * histograms, which loses exactly what a server view needs (one model's histogram, its count).
 *
 * Grammar, line by line:
 *   # HELP <name> <text>        text escapes \\ and \n
 *   # TYPE <name> <type>        counter | gauge | histogram | summary | untyped
 *   # anything else             a comment
 *   <name>{<l>="<v>",...} <value> [<timestamp ms>]
 * Label values escape \\, \" and \n. Values are Go floats: NaN, +Inf, -Inf allowed.
 * A histogram family <f> owns the samples <f>_bucket (with `le`), <f>_sum and <f>_count;
 * a summary owns <f>_sum and <f>_count beside its quantile samples; a counter may be written
 * <f>_total with a TYPE line naming <f>.
 */
import { figure } from '../numbers.js';

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  /** The sample's own name, e.g. `vllm:time_to_first_token_seconds_bucket`. */
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: MetricType;
  help: string;
  samples: Sample[];
}

export class ExpositionError extends Error {}

/**
 * Samples one scrape may hold. An engine exposes a few thousand (histogram buckets per model);
 * a registry of 100 k series costs hundreds of MB to parse on every scrape, for nothing the
 * mapping table reads.
 */
const MAX_SAMPLES = 50_000;

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;
const TYPES: readonly string[] = ['counter', 'gauge', 'histogram', 'summary', 'untyped'];

/** Families by name, in the order first seen. Throws an ExpositionError naming the line on malformed input. */
export function parseExposition(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  let samples = 0;
  const family = (name: string): Family => {
    let f = families.get(name);
    if (!f) families.set(name, (f = { name, type: 'untyped', help: '', samples: [] }));
    return f;
  };
  const lines = text.split('\n');
  lines.forEach((raw, i) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return;
    const fail = (why: string): never => {
      throw new ExpositionError(`line ${i + 1}: ${why}`);
    };
    if (line.startsWith('#')) {
      const m = /^#\s*(HELP|TYPE)\s+([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\s(.*))?$/.exec(line);
      if (!m) return; // a plain comment
      const [, kind, name, rest = ''] = m;
      if (kind === 'HELP') family(name).help = unescapeHelp(rest);
      else {
        const type = rest.trim();
        if (!TYPES.includes(type)) fail(`TYPE of ${name} is ${JSON.stringify(type)}; expected one of ${TYPES.join(', ')}`);
        family(name).type = type as MetricType;
      }
      return;
    }
    if (++samples > MAX_SAMPLES)
      fail(`more than ${figure(MAX_SAMPLES)} samples; expected an engine's own metrics (a few thousand), not a whole registry`);
    const sample = parseSampleLine(line.trimStart(), fail);
    family(owner(sample.name, families)).samples.push(sample);
  });
  return families;
}

/** Which family a sample belongs to: a histogram's or summary's suffixed series go to the family the TYPE line named. */
function owner(sample: string, families: Map<string, Family>): string {
  for (const suffix of ['_bucket', '_sum', '_count', '_total', '_created']) {
    if (!sample.endsWith(suffix)) continue;
    const base = sample.slice(0, -suffix.length);
    const f = families.get(base);
    if (!f) continue;
    if (
      suffix === '_total'
        ? f.type === 'counter'
        : suffix === '_bucket'
          ? f.type === 'histogram'
          : f.type === 'histogram' || f.type === 'summary' || f.type === 'counter'
    )
      return base;
  }
  return sample;
}

function parseSampleLine(line: string, fail: (why: string) => never): Sample {
  const nm = NAME.exec(line);
  if (!nm) fail(`expected a metric name, got ${JSON.stringify(line.slice(0, 40))}`);
  const name = nm[0];
  let pos = name.length;
  const labels: Record<string, string> = {};
  if (line[pos] === '{') {
    pos++;
    for (;;) {
      while (line[pos] === ' ') pos++;
      if (line[pos] === '}') {
        pos++;
        break;
      }
      const ln = LABEL_NAME.exec(line.slice(pos));
      if (!ln) fail(`${name}: expected a label name at column ${pos + 1}`);
      pos += ln[0].length;
      while (line[pos] === ' ') pos++;
      if (line[pos] !== '=' || line[pos + 1] !== '"') fail(`${name}: expected ="…" after label ${ln[0]}`);
      pos += 2;
      let value = '';
      for (;;) {
        const c = line[pos];
        if (c === undefined) fail(`${name}: label ${ln[0]} has an unterminated value`);
        if (c === '"') break;
        if (c === '\\') {
          const e = line[pos + 1];
          if (e === 'n') value += '\n';
          else if (e === '\\' || e === '"') value += e;
          else fail(`${name}: label ${ln[0]} has an unknown escape \\${e ?? ''}`);
          pos += 2;
        } else {
          value += c;
          pos++;
        }
      }
      pos++; // closing quote
      if (ln[0] in labels) fail(`${name}: label ${ln[0]} is given twice`);
      labels[ln[0]] = value;
      while (line[pos] === ' ') pos++;
      if (line[pos] === ',') pos++;
      else if (line[pos] !== '}') fail(`${name}: expected , or } after label ${ln[0]}`);
    }
  }
  const rest = line
    .slice(pos)
    .trim()
    .split(/[ \t]+/);
  if (rest.length < 1 || rest.length > 2 || rest[0] === '') fail(`${name}: expected a value and an optional timestamp`);
  const value = parseValue(rest[0]);
  if (value === undefined) fail(`${name}: ${JSON.stringify(rest[0])} is not a number`);
  if (rest[1] !== undefined && !/^-?\d+$/.test(rest[1])) fail(`${name}: timestamp ${JSON.stringify(rest[1])} is not an integer`);
  return { name, labels, value: value };
}

/** A Go float as Prometheus writes it. */
export function parseValue(s: string): number | undefined {
  if (s === 'NaN') return NaN;
  if (s === '+Inf' || s === 'Inf') return Infinity;
  if (s === '-Inf') return -Infinity;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return undefined;
  return Number(s);
}

function unescapeHelp(s: string): string {
  return s.replace(/\\(\\|n)/g, (_, c: string) => (c === 'n' ? '\n' : '\\'));
}
