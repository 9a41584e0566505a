import { parseArgs } from 'node:util';
import { loadSpec } from '../spec/load.js';
import { loadWorkloadInputs } from '../workload/inputs.js';
import { EXIT, UsageError } from './errors.js';

export const VALIDATE_HELP = `Usage: loadgate validate SPEC [--json]

Checks a benchmark spec without running it: YAML syntax, schema, durations, URL and the
API-key environment variable. Prints the spec with defaults filled (--json) or one line.`;

// eslint-disable-next-line @typescript-eslint/require-await -- every command has the async signature main() awaits
export async function validateCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } },
  });
  if (values.help) {
    process.stdout.write(`${VALIDATE_HELP}\n`);
    return EXIT.pass;
  }
  if (positionals.length !== 1) throw new UsageError('loadgate validate takes exactly one spec file; see loadgate validate --help');
  const r = loadSpec(positionals[0]);
  loadWorkloadInputs(r); // datasets and length files are checked too, with file and line

  if (values.json) process.stdout.write(`${JSON.stringify({ spec: r.spec, hash: r.hash }, null, 2)}\n`);
  else process.stdout.write(`${positionals[0]}: valid (spec hash ${r.hash.slice(0, 12)})\n`);
  return EXIT.pass;
}
