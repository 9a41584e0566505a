import type { Progress } from '../run/run.js';

const PLAIN_EVERY_S = 5;

/** Live progress on a TTY (one line redrawn in place), a plain line every few seconds otherwise (CI logs). */
export function progressPrinter(
  stream: NodeJS.WriteStream,
  label: () => string = () => '',
): { update: (p: Progress) => void; end: () => void } {
  let lastPlain = -Infinity;
  const line = (p: Progress) =>
    `${label()}[${p.phase}] ${p.elapsedS.toFixed(0)}/${p.totalS.toFixed(0)} s · sent ${p.sent} · ok ${p.ok} · failed ${p.failed} · in flight ${p.inFlight}`;
  return {
    update(p) {
      if (stream.isTTY) stream.write(`\r\x1b[2K${line(p)}`);
      else if (p.elapsedS - lastPlain >= PLAIN_EVERY_S) {
        lastPlain = p.elapsedS;
        stream.write(`${line(p)}\n`);
      }
    },
    end() {
      if (stream.isTTY) stream.write('\r\x1b[2K');
    },
  };
}
