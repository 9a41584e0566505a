/** Rounded to 3 decimal places: how results store derived figures (ms to the µs, rates to 1/1000). */
export const round3 = (x: number) => Math.round(x * 1000) / 1000;
