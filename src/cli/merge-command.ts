import { readResult } from '../result/load.js';
import { checkDistinctRuns, mergeResults } from '../result/merge.js';
import { checkDistinctInputs, checkOutputPaths, writeFileAtomic } from '../result/write.js';
import { parseCommandArgs } from './args.js';
import { EXIT, UsageError } from './errors.js';

export const MERGE_HELP = `Usage: loadgate merge A.json B.json … --out MERGED.json [--mode replicates|shards] [--force]

Combines results of the same spec exactly: HdrHistograms and counters add, and every
percentile is recomputed from the merged histograms (never averaged).

Options:
  --out FILE        where to write the merged result (required)
  --mode M          replicates (default): the same run repeated one after another; windows
                    add, rates are averaged over the total time, and the run-to-run spread
                    (coefficient of variation) is recorded so compare can widen its noise test.
                    shards: parallel generators at rate/N each over the same window; rates add.
  --force           merge results whose spec hashes or models differ (marked invalid)
  -h, --help        this help

Exit codes: 0 merged, 3 error (missing or invalid file, different benchmarks without --force).`;

// eslint-disable-next-line @typescript-eslint/require-await -- every command has the async signature main() awaits
export async function mergeCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('merge', argv, {
    out: { type: 'string' },
    mode: { type: 'string', default: 'replicates' },
    force: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  });
  if (values.help) {
    process.stdout.write(`${MERGE_HELP}\n`);
    return EXIT.pass;
  }
  if (positionals.length < 2) throw new UsageError('loadgate merge needs at least two result files; see loadgate merge --help');
  if (!values.out) throw new UsageError('loadgate merge needs --out FILE for the merged result');
  if (values.mode !== 'replicates' && values.mode !== 'shards')
    throw new UsageError(`--mode "${values.mode}" is not known; expected replicates or shards`);
  checkDistinctInputs(positionals);
  checkOutputPaths(
    [{ path: values.out, what: '--out' }],
    positionals.map((path) => ({ path, what: 'an input' })),
  );
  const results = positionals.map(readResult);
  checkDistinctRuns(results, positionals);
  const merged = mergeResults(results, { mode: values.mode, force: values.force, names: positionals });
  writeFileAtomic(values.out, `${JSON.stringify(merged, null, 2)}\n`, '--out');
  const w = merged.requests.window;
  process.stdout.write(
    `Merged ${positionals.length} results (${values.mode}) into ${values.out}: ${w.scheduled} requests in ${merged.load.window_s} s of window, ${w.by_class.ok} ok; ${
      merged.validity.valid
        ? 'valid'
        : `NOT valid (${merged.validity.checks
            .filter((c) => !c.ok)
            .map((c) => c.name)
            .join(', ')})`
    }\n`,
  );
  return EXIT.pass;
}
