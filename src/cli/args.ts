import { parseArgs, type ParseArgsConfig } from 'node:util';
import { closest } from '../spec/did-you-mean.js';
import { UsageError } from './errors.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** A value that reads as a negative number: `-1`, `-0.5`, `-.5`, `-1e3`. */
const NEGATIVE_NUMBER = /^-(\d|\.\d)/;

/**
 * node:util parseArgs for one command, with the two things it gets wrong for users: a negative
 * number after a flag that takes a value (`--rate -1`) is that value, so the flag's own check
 * can say what is wrong with it instead of "argument is ambiguous"; and its errors
 * become one UsageError line that names the command's help, with a did-you-mean for an
 * unknown flag.
 */
export function parseCommandArgs<O extends Options>(command: string, argv: string[], options: O, allowPositionals = true) {
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const [a, next] = [argv[i], argv[i + 1]];
    if (takesValue(options, a) && next !== undefined && NEGATIVE_NUMBER.test(next)) {
      args.push(`${a}=${next}`); // `--rate -1` → `--rate=-1`
      i++;
    } else args.push(a);
  }
  try {
    return parseArgs({ args, options, allowPositionals, strict: true });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (!e.code?.startsWith('ERR_PARSE_ARGS')) throw err;
    const help = `see loadgate ${command} --help`;
    const unknown = /^Unknown option '(-{1,2}[^']*)'/.exec(e.message);
    if (unknown) {
      const guess = closest(unknown[1].replace(/^-+/, ''), Object.keys(options));
      throw new UsageError(`Unknown option '${unknown[1]}'${guess ? `; did you mean --${guess}?` : ''} (${help})`);
    }
    throw new UsageError(`${e.message.split('\n')[0]} (${help})`);
  }
}

/** A long flag (`--rate`, not `--rate=5`) of a string option. */
function takesValue(options: Options, arg: string): boolean {
  if (!arg.startsWith('--') || arg.includes('=')) return false;
  return options[arg.slice(2)]?.type === 'string';
}
