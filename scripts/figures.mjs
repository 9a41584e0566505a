// The figures the bench scripts print: a nearest-rank percentile of an ascending array, and a
// number to a fixed number of decimals ('n/a' where there is none).

/** The p-th percentile (0–100) of `sorted`, ascending, by nearest rank; NaN when it is empty. */
export const pct = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN);

/** `x` with `d` decimals, or 'n/a' when it is not a finite number. */
export const f = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');
