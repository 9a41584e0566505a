import { createRequire as __lgCreateRequire } from 'node:module'; const require = __lgCreateRequire(import.meta.url);

// src/time.ts
import { performance } from "node:perf_hooks";
var CLOCK_OFFSET_ENV = "LOADGATE_CLOCK_OFFSET";
var MAX_INHERITED_STEP_MS = 6e4;
function familyClock(env) {
  const monotonicOrigin = monotonicOriginOfThisThread();
  const own = performance.timeOrigin - monotonicOrigin;
  const inherited = Number(env[CLOCK_OFFSET_ENV]);
  const offset = Number.isFinite(inherited) && Math.abs(inherited - own) <= MAX_INHERITED_STEP_MS ? inherited : own;
  env[CLOCK_OFFSET_ENV] = String(offset);
  const origin = offset + monotonicOrigin;
  return () => origin + performance.now();
}
function monotonicOriginOfThisThread() {
  let gap = Infinity;
  let origin = 0;
  for (let i = 0; i < 5; i++) {
    const a = performance.now();
    const m = Number(process.hrtime.bigint()) / 1e6;
    const b = performance.now();
    if (b - a < gap) [gap, origin] = [b - a, m - (a + b) / 2];
  }
  return origin;
}
var now = familyClock(process.env);
export {
  CLOCK_OFFSET_ENV,
  familyClock,
  now
};
