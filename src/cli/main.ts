import { runCommand } from './run-command.js';
import { validateCommand } from './validate-command.js';
import { compareCommand } from './compare-command.js';
import { mergeCommand } from './merge-command.js';
import { reportCommand } from './report-command.js';
import { sweepCommand } from './sweep-command.js';
import { calibrateCommand } from './calibrate-command.js';
import { planCommand } from './plan-command.js';
import { historyCommand } from './history-command.js';
import { initCommand } from './init-command.js';
import { runSimCli } from '../sim/launch.js';
import { EXIT, oneLine } from './errors.js';
import { TOOL_VERSION } from '../version.js';

const HELP = `loadgate ${TOOL_VERSION} — open-loop load tests of OpenAI-compatible streaming LLM endpoints, with a CI verdict

Usage: loadgate <command> [options]

Commands:
  run SPEC        run a benchmark and print the report and verdict
  sweep SPEC      capacity sweep: the knee, saturation, capacity at SLO, fleet sizing
  validate SPEC   check a spec without running it
  compare B R     judge result (or sweep) R against baseline B (noise-aware gate)
  merge A B …     merge results (replicates or shards) by adding histograms
  report R        write markdown/HTML reports of a result or a sweep
  calibrate SPEC  run N short A/A replicates and store the between-run CV per metric
  plan SPEC       the window or replicates needed to detect a given change (--baseline, --detect)
  history CMD     nightly history: append results, show it, check it for change points, export it
  sim             start the embedded OpenAI-compatible simulator
  init            write a commented spec and GitHub workflows for a target (or the simulator)

Options:
  --version       print the version
  -h, --help      this help

Run "loadgate <command> --help" for a command's options.

Exit codes: 0 pass, 1 fail, 2 inconclusive, 3 error (bad spec, flag, file or target: never a
verdict), 130 interrupted twice.`;

/** Dispatches a command; every failure the user can fix ends as one line on stderr and exit code 3. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'run':
        return await runCommand(rest);
      case 'sweep':
        return await sweepCommand(rest);
      case 'validate':
        return await validateCommand(rest);
      case 'compare':
        return await compareCommand(rest);
      case 'merge':
        return await mergeCommand(rest);
      case 'report':
        return await reportCommand(rest);
      case 'calibrate':
        return await calibrateCommand(rest);
      case 'plan':
        return await planCommand(rest);
      case 'history':
        return await historyCommand(rest);
      case 'sim':
        return await runSimCli(rest);
      case 'init':
        return await initCommand(rest);
      case '--version':
        process.stdout.write(`${TOOL_VERSION}\n`);
        return EXIT.pass;
      case undefined:
      case '-h':
      case '--help':
      case 'help':
        process.stdout.write(`${HELP}\n`);
        return command === undefined ? EXIT.error : EXIT.pass;
      default:
        process.stderr.write(
          `loadgate: unknown command "${command}"; expected run, sweep, validate, compare, merge, report, calibrate, plan, history, sim or init (see loadgate --help)\n`,
        );
        return EXIT.error;
    }
  } catch (e) {
    process.stderr.write(`loadgate ${command}: ${oneLine(e)}\n`);
    if (process.env.LOADGATE_DEBUG) process.stderr.write(`${(e as Error).stack}\n`);
    return EXIT.error;
  }
}
