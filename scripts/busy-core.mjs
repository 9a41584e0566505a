#!/usr/bin/env node
// Runs jest while another process keeps one core at 100 %: the check that the timing tests hold
// on a busy machine (they compare the client with the fixtures' own record of when they wrote,
// never with nominal constants). Arguments go to jest: test files, -t, …; none runs the whole
// suite. The busy process is ended when jest exits, whatever the outcome; the exit code is jest's.
//
//   npm run test:busy                                   # the whole suite (12 min on 2 cores)
//   npm run test:busy -- test/run/timing.test.ts        # one file
//   node scripts/busy-core.mjs --cpu 0 test/client      # the busy process pinned to cpu 0
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pinnedTo, root } from './sim-process.mjs';

const args = process.argv.slice(2);
const at = args.indexOf('--cpu');
const cpu = at >= 0 ? args.splice(at, 2)[1] : undefined;

// A bare spin: one core's worth of work for as long as it lives, and no allocation to speak of.
const [cmd, argv] = pinnedTo(cpu, [process.execPath, '-e', 'for (;;);']);
const busy = spawn(cmd, argv, { stdio: 'ignore' });
const stopBusy = () => busy.exitCode === null && busy.kill('SIGKILL');
process.once('exit', stopBusy);
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => process.exit(130));
console.log(
  `busy-core: pid ${busy.pid} spinning${cpu === undefined ? '' : ` on cpu ${cpu}`} while jest runs ${args.join(' ') || 'the whole suite'}`,
);

const jest = spawn(process.execPath, ['--experimental-vm-modules', join(root, 'node_modules/jest/bin/jest.js'), ...args], {
  cwd: root,
  stdio: 'inherit',
});
const code = await new Promise((resolve) => jest.once('close', (c) => resolve(c ?? 1)));
stopBusy();
process.exit(code);
