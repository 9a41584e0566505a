import * as core from '@actions/core';
import * as log from './log.js';
import * as github from '@actions/github';
import { commentStep } from './comment-step.js';
import { gateStep } from './gate-step.js';
import { readContext, type Octokit } from './github-context.js';
import { readInputs } from './inputs.js';
import { maskSecret } from './secrets.js';
import type { StepContext, StepOutcome } from './step.js';
import { errorMarkdown, writeJobSummary } from './summary.js';
import { sweepStep } from './sweep.js';

/**
 * The action, as actions/typescript-action's main.ts has it: read the inputs → do the work
 * (gate-step.ts: benchmark, verdict, reports, comment; sweep.ts: a sweep and its capacity gate;
 * comment-step.ts: post a handed-off comment) → set the outputs here, in one place → fail
 * last, so a regression never swallows
 * the report. An operational error (bad input or spec, unreachable target, failed baseline
 * download) is not a verdict: verdict output `error`, one line, exit code 3.
 */
export async function run(): Promise<void> {
  // Masked before anything else runs: from here on no log line can show them.
  maskSecret(core.getInput('api-key'));
  maskSecret(core.getInput('github-token'));
  let outcome: StepOutcome;
  try {
    const step = stepContext();
    const { commentFrom, mode } = step.inputs;
    outcome = commentFrom ? await commentStep(step, commentFrom) : mode === 'sweep' ? await sweepStep(step) : await gateStep(step);
  } catch (err) {
    const message = ((err as Error).message ?? String(err)).split('\n')[0];
    await writeJobSummary(errorMarkdown(message)).catch(() => undefined);
    outcome = { outputs: { verdict: 'error' }, failure: message, exitCode: 3 };
  }
  for (const [name, value] of Object.entries(outcome.outputs)) core.setOutput(name, value);
  if (outcome.failure !== undefined) {
    log.setFailed(outcome.failure);
    process.exitCode = outcome.exitCode ?? 1;
  }
}

function stepContext(): StepContext {
  const inputs = readInputs((name) => core.getInput(name));
  enterWorkingDirectory(inputs.workingDirectory);
  let client: Octokit | undefined;
  const octokit = () => {
    if (!inputs.githubToken) throw new Error('input github-token is empty; expected a token (the default is the workflow GITHUB_TOKEN)');
    return (client ??= github.getOctokit(inputs.githubToken));
  };
  return { inputs, ctx: readContext(), octokit };
}

function enterWorkingDirectory(dir: string): void {
  try {
    process.chdir(dir);
  } catch (err) {
    throw new Error(
      `input working-directory is ${JSON.stringify(dir)}, which cannot be entered (${(err as NodeJS.ErrnoException).code}); expected a directory of the workspace`,
      { cause: err },
    );
  }
}
