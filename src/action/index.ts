// The action's entry point (dist/index.js): everything happens in run(), which never throws.
// The event payload is checked before main.js (and with it @actions/github, which parses the
// payload on import) is loaded, so a malformed one is one error line, not a crash.
import * as core from '@actions/core';
import { tuneGarbageCollection } from '../run/gc-flags.js';
import { eventFileProblem } from './event-file.js';
import * as log from './log.js';
import { errorMarkdown, writeJobSummary } from './summary.js';

tuneGarbageCollection();
const problem = eventFileProblem();
if (problem === null) {
  void import('./main.js').then((m) => m.run());
} else {
  void writeJobSummary(errorMarkdown(problem))
    .catch(() => undefined)
    .then(() => {
      core.setOutput('verdict', 'error');
      log.setFailed(problem);
      process.exitCode = 3;
    });
}
