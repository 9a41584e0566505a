/** Rounded to 3 decimal places: how results store derived figures (ms to the µs, rates to 1/1000). */
export const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** A figure in a sentence: 4 significant digits, no trailing zeros (22.73, 0.2567, 1438). */
export const sig4 = (x: number) => String(Number(x.toPrecision(4)));
