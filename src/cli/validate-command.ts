import { bytes, figure, MAX_DURATION_MS, MAX_SCHEDULED_REQUESTS, MAX_SPEC_BYTES } from '../spec/limits.js';
import { readSpec } from '../spec/load.js';
import { loadWorkloadInputs } from '../workload/inputs.js';
import { parseCommandArgs } from './args.js';
import { EXIT, UsageError } from './errors.js';

export const VALIDATE_HELP = `Usage: loadgate validate SPEC [--json]

Checks a benchmark spec without running it: YAML syntax, schema, durations, URL, the
API-key environment variable, dataset and length files, and the run's limits (at most
${figure(MAX_SCHEDULED_REQUESTS)} scheduled requests, durations up to ${MAX_DURATION_MS / 3_600_000}h, a spec file up to ${bytes(MAX_SPEC_BYTES)}). Prints one
line, or the spec with defaults filled (--json). A spec without target.model is valid: the
run takes the model the server lists, if it lists exactly one.

Options:
  --json            print the resolved spec and its hash as JSON
  -h, --help        this help

Exit codes: 0 valid, 3 invalid (one line naming the file, the key and what was expected).`;

// eslint-disable-next-line @typescript-eslint/require-await -- every command has the async signature main() awaits
export async function validateCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('validate', argv, {
    json: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  });
  if (values.help) {
    process.stdout.write(`${VALIDATE_HELP}\n`);
    return EXIT.pass;
  }
  if (positionals.length !== 1) throw new UsageError('loadgate validate takes exactly one spec file; see loadgate validate --help');
  const r = readSpec(positionals[0]);
  loadWorkloadInputs(r); // datasets and length files are checked too, with file and line

  if (values.json) process.stdout.write(`${JSON.stringify({ spec: r.spec, hash: r.hash }, null, 2)}\n`);
  else process.stdout.write(`${positionals[0]}: valid (spec hash ${r.hash.slice(0, 12)})\n`);
  return EXIT.pass;
}
