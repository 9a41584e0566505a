import { tuneGarbageCollection } from '../run/gc-flags.js';
import { main } from './main.js';

/**
 * Once the command has answered (its result written, its line printed), nothing it left
 * behind may hold the process: a request abandoned by Ctrl-C or by a failed readiness check
 * could otherwise keep it alive until its own timeout. The timer is unref'd, so a process
 * that ends on its own ends at once.
 */
const EXIT_AFTER_ANSWER_MS = 2000;

tuneGarbageCollection();
const code = await main(process.argv.slice(2));
process.exitCode = code;
setTimeout(() => process.exit(code), EXIT_AFTER_ANSWER_MS).unref();
