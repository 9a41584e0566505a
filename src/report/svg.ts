import { escapeHtml as esc } from './escape.js';
import { maxOf, minOf } from '../numbers.js';

/** A line chart as inline SVG: no scripts, no external resources, readable without a browser's help. */

export interface Series {
  name: string;
  points: [x: number, y: number][];
  color: string;
  dashed?: boolean;
  /** Draw a dot at each point (for sparse series such as a sweep's points). */
  dots?: boolean;
}

/** A labelled reference line: vertical at x, or horizontal at y. */
export interface Mark {
  x?: number;
  y?: number;
  label: string;
  color: string;
}

export interface Axis {
  label: string;
  /** The axis runs at least to here (x only: charts that share an x axis give the same one). */
  extent?: number;
  /** Where to put labelled ticks; default: evenly spaced "nice" values. */
  ticks?: { at: number; label: string }[];
  /** Upper end of the axis (y only); lines above it are clipped at the plot's edge. Default: the data's maximum. */
  max?: number;
}

/** A shaded stretch of the x axis (a pattern's phase), labelled at its top. */
export interface Band {
  from: number;
  to: number;
  label: string;
  color: string;
}

const W = 640;
const H = 300;
const M = { left: 64, right: 32, top: 48, bottom: 46 };
/** Tick labels: as few digits as the value needs (0, 2.5, 20, 400). */
const tick = (v: number) => String(Number(v.toPrecision(6)));

/** 1, 2 or 5 × 10ⁿ steps, about `count` of them across [0, max]. */
function niceTicks(max: number, count = 5): number[] {
  const raw = max / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw)!;
  return Array.from({ length: Math.floor(max / step) + 1 }, (_, i) => i * step);
}

/** The axes' ticks and ranges: x over the points and its ticks (and extent), y from 0 to 5 % above the highest point or mark. */
function axesOf(all: [number, number][], x: Axis, y: Axis, marks: Mark[]) {
  const xs = all.map((p) => p[0]);
  const xTicks = x.ticks ?? niceTicks(maxOf(xs, x.extent ?? 0)).map((at) => ({ at, label: tick(at) }));
  const xMin = minOf(
    xTicks.map((t) => t.at),
    minOf(xs),
  );
  const xMax = maxOf(
    xTicks.map((t) => t.at),
    maxOf(xs, x.extent ?? -Infinity),
  );
  const yMax =
    y.max ??
    (maxOf(
      marks.map((m) => m.y ?? 0),
      maxOf(all.map((p) => p[1])),
    ) * 1.05 ||
      1);
  const yTicks = y.ticks ?? niceTicks(yMax).map((at) => ({ at, label: tick(at) }));
  return { xTicks, xMin, xMax, yTicks, yMax };
}

export function lineChart(title: string, series: Series[], x: Axis, y: Axis, marks: Mark[] = [], bands: Band[] = []): string {
  const all = series.flatMap((s) => s.points);
  const head = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(title)}" font-family="system-ui, sans-serif" font-size="11">`;
  const titleText = `<text x="${W / 2}" y="18" text-anchor="middle" font-size="13" font-weight="600">${esc(title)}</text>`;
  if (all.length === 0)
    return `${head}${titleText}<text x="${W / 2}" y="${H / 2}" text-anchor="middle" fill="#888">no samples</text></svg>`;

  const { xTicks, xMin, xMax, yTicks, yMax } = axesOf(all, x, y, marks);
  const px = (v: number) => M.left + ((v - xMin) / (xMax - xMin || 1)) * (W - M.left - M.right);
  const py = (v: number) => H - M.bottom - (v / yMax) * (H - M.top - M.bottom);
  const r1 = (v: number) => Math.round(v * 10) / 10;

  const shaded = bands.map((b) => {
    const [x0, x1] = [r1(px(Math.max(b.from, xMin))), r1(px(Math.min(b.to, xMax)))];
    return `<rect x="${x0}" y="${M.top}" width="${r1(Math.max(0, x1 - x0))}" height="${H - M.top - M.bottom}" fill="${b.color}" fill-opacity="0.12"/><text x="${r1((x0 + x1) / 2)}" y="${M.top + 12}" text-anchor="middle" fill="#57606a" font-size="10">${esc(b.label)}</text>`;
  });
  const grid = [
    ...yTicks.map(
      (t) =>
        `<line x1="${M.left}" x2="${W - M.right}" y1="${r1(py(t.at))}" y2="${r1(py(t.at))}" stroke="#e5e5e5"/><text x="${M.left - 6}" y="${r1(py(t.at)) + 4}" text-anchor="end" fill="#555">${esc(t.label)}</text>`,
    ),
    ...xTicks.map(
      (t) =>
        `<line x1="${r1(px(t.at))}" x2="${r1(px(t.at))}" y1="${M.top}" y2="${H - M.bottom}" stroke="#f0f0f0"/><text x="${r1(px(t.at))}" y="${H - M.bottom + 16}" text-anchor="middle" fill="#555">${esc(t.label)}</text>`,
    ),
  ];
  const lines = series.map(
    (s) =>
      `<polyline fill="none" stroke="${s.color}" stroke-width="1.8"${s.dashed ? ' stroke-dasharray="6 4"' : ''} points="${s.points.map(([a, b]) => `${r1(px(a))},${r1(py(b))}`).join(' ')}"/>`,
  );
  const dots = series.flatMap((s) =>
    s.dots ? s.points.map(([a, b]) => `<circle cx="${r1(px(a))}" cy="${r1(py(b))}" r="2.5" fill="${s.color}"/>`) : [],
  );
  const refs = marks.map((m) =>
    m.x !== undefined
      ? `<line x1="${r1(px(m.x))}" x2="${r1(px(m.x))}" y1="${M.top}" y2="${H - M.bottom}" stroke="${m.color}" stroke-dasharray="3 3" class="mark"/><text x="${r1(px(m.x)) + 3}" y="${M.top + 10}" fill="${m.color}">${esc(m.label)}</text>`
      : `<line x1="${M.left}" x2="${W - M.right}" y1="${r1(py(m.y!))}" y2="${r1(py(m.y!))}" stroke="${m.color}" stroke-dasharray="3 3" class="mark"/><text x="${W - M.right - 3}" y="${r1(py(m.y!)) - 3}" text-anchor="end" fill="${m.color}">${esc(m.label)}</text>`,
  );
  const legend = series.map(
    (s, i) =>
      `<line x1="${M.left + i * 130}" x2="${M.left + 22 + i * 130}" y1="32" y2="32" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/><text x="${M.left + 28 + i * 130}" y="36">${esc(s.name)}</text>`,
  );
  const labels = [
    `<text x="${(M.left + W - M.right) / 2}" y="${H - 8}" text-anchor="middle" fill="#333">${esc(x.label)}</text>`,
    `<text transform="translate(14 ${(M.top + H - M.bottom) / 2}) rotate(-90)" text-anchor="middle" fill="#333">${esc(y.label)}</text>`,
  ];
  // A clipped axis keeps the lines inside the plot; the id is unique per chart, as several share one page.
  const clipId = `clip-${[...title].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7).toString(36)}`;
  const clip =
    y.max === undefined
      ? []
      : [
          `<clipPath id="${clipId}"><rect x="${M.left}" y="${M.top - 4}" width="${W - M.left - M.right}" height="${H - M.top - M.bottom + 8}"/></clipPath>`,
        ];
  const plotted = y.max === undefined ? [...lines, ...dots] : [`<g clip-path="url(#${clipId})">`, ...lines, ...dots, '</g>'];
  return [
    head,
    titleText,
    ...clip,
    ...shaded,
    ...grid,
    `<line x1="${M.left}" x2="${W - M.right}" y1="${H - M.bottom}" y2="${H - M.bottom}" stroke="#999"/>`,
    ...plotted,
    ...refs,
    ...legend,
    ...labels,
    '</svg>',
  ].join('');
}
