/** The GitHub workflows `loadgate init` writes: each names only the spec files init wrote beside it. */

export type WorkflowKind = 'pr' | 'nightly' | 'release';

export interface WorkflowContext {
  /** Spec paths relative to the repository root, e.g. bench/chat.yml. */
  specs: { chat: string; soak: string; release: string; capacity: string };
  /** The variable the spec reads its API key from; the workflow fills it from a secret of the same name. */
  apiKeyEnv?: string;
  /** The target is the embedded simulator: the workflow runs as written. */
  sim: boolean;
}

/** Where each workflow goes. */
export const WORKFLOW_FILES: Record<WorkflowKind, string> = {
  pr: '.github/workflows/loadgate-pr.yml',
  nightly: '.github/workflows/loadgate-nightly.yml',
  release: '.github/workflows/loadgate-release.yml',
};

/**
 * The action's reference. A tag or branch can be moved to other code after you reviewed it;
 * GitHub's security hardening guide recommends pinning third-party actions to a full commit SHA.
 */
const USES = 'loadgate/loadgate@main # pin: replace main with the full commit SHA you reviewed';

/** The step's environment and the comment on where the target is. */
function targetLines(c: WorkflowContext, indent: string): string[] {
  const lines = c.sim
    ? []
    : [
        `${indent}# The spec's target.url is the address init probed; a runner must reach it. For a preview`,
        `${indent}# deployment per pull request, pass its URL instead:`,
        `${indent}# target-url: \${{ steps.deploy.outputs.url }}`,
      ];
  return lines;
}

function envLines(c: WorkflowContext, indent: string): string[] {
  if (!c.apiKeyEnv) return [];
  return [`${indent}env:`, `${indent}  ${c.apiKeyEnv}: \${{ secrets.${c.apiKeyEnv} }}   # a repository secret of this name`];
}

function uploadBaseline(indent: string, ifLine?: string): string[] {
  return [
    `${indent}- uses: actions/upload-artifact@v4`,
    ...(ifLine ? [`${indent}  if: ${ifLine}`] : []),
    `${indent}  with:`,
    `${indent}    name: loadgate-baseline`,
    `${indent}    path: \${{ steps.loadgate.outputs.result-path }}`,
    `${indent}    retention-days: 90`,
  ];
}

function calibrationHint(spec: string, indent: string): string[] {
  const out = spec.replace(/[^/]+$/, 'calibration.json');
  return [
    `${indent}# The deployment's run-to-run spread widens both sides of every comparison. Make it once with`,
    `${indent}#   loadgate calibrate ${spec} --replicates 5 --out ${out}`,
    `${indent}# commit the file, then uncomment:`,
    `${indent}# calibration: ${out}`,
  ];
}

function prWorkflow(c: WorkflowContext): string[] {
  return [
    `# Gates every pull request on ${c.specs.chat}; on push to main the same run records the baseline.`,
    `# Written by loadgate init; it needs ${c.specs.chat}${c.apiKeyEnv ? ` and the repository secret ${c.apiKeyEnv}` : ''}.`,
    'name: loadgate-pr',
    'on:',
    '  pull_request:',
    '  push:',
    '    branches: [main]',
    'permissions:',
    '  contents: read',
    '  actions: read          # baseline-artifact: the newest baseline recorded on main',
    '  pull-requests: write   # the sticky comment',
    'concurrency:',
    '  group: loadgate-pr-${{ github.ref }}',
    '  cancel-in-progress: true',
    'jobs:',
    '  bench:',
    '    runs-on: ubuntu-latest',
    '    steps:',
    ...loadgateStep(c, c.specs.chat),
    "          mode: ${{ github.event_name == 'push' && 'record' || 'gate' }}",
    '          baseline-artifact: loadgate-baseline',
    '          on-missing-baseline: warn   # the first pull requests, before main recorded one',
    ...calibrationHint(c.specs.chat, '          '),
    '          fail-on: fail',
    ...uploadBaseline('      ', "github.event_name == 'push'"),
  ];
}

/** The checkout and the loadgate step up to its spec and target inputs; the caller adds the rest of `with:`. */
function loadgateStep(c: WorkflowContext, spec: string, id = 'loadgate', firstInputs: string[] = []): string[] {
  return [
    '      - uses: actions/checkout@v4',
    `      - uses: ${USES}`,
    `        id: ${id}`,
    ...envLines(c, '        '),
    '        with:',
    ...firstInputs,
    `          spec: ${spec}`,
    ...targetLines(c, '          '),
  ];
}

function nightlyWorkflow(c: WorkflowContext): string[] {
  return [
    `# Nightly: a baseline from three merged runs of ${c.specs.chat}, and a soak (${c.specs.soak}).`,
    `# Written by loadgate init; it needs ${c.specs.chat} and ${c.specs.soak}${c.apiKeyEnv ? ` and the repository secret ${c.apiKeyEnv}` : ''}.`,
    '# Pull requests can take this baseline with baseline-workflow: loadgate-nightly.yml.',
    'name: loadgate-nightly',
    'on:',
    '  schedule:',
    "    - cron: '17 3 * * *'",
    '  workflow_dispatch:',
    'permissions:',
    '  contents: read',
    'jobs:',
    '  record:',
    '    runs-on: ubuntu-latest',
    '    permissions:',
    '      contents: write     # the history branch, committed with the workflow token',
    '    concurrency: loadgate-history',
    '    steps:',
    ...loadgateStep(c, c.specs.chat),
    '          mode: record',
    "          replicates: '3'   # the baseline carries its own between-run spread",
    '          # One JSON line a night on the loadgate-history branch; a change point among the',
    '          # latest nights fails the job (docs/history.md).',
    '          history: nightly/history.jsonl',
    '          history-branch: loadgate-history',
    ...uploadBaseline('      '),
    '  soak:',
    '    runs-on: ubuntu-latest',
    '    steps:',
    ...loadgateStep(c, c.specs.soak),
    '          mode: gate        # drift is judged within the run: no baseline needed',
    '          comment: never',
  ];
}

function releaseWorkflow(c: WorkflowContext): string[] {
  const baseline = c.specs.capacity.replace(/[^/]+$/, 'capacity-baseline.json');
  return [
    `# Release sign-off on a version tag: ${c.specs.release} against the nightly baseline, and a capacity`,
    `# sweep (${c.specs.capacity}). Written by loadgate init; it needs ${c.specs.release} and ${c.specs.capacity}${c.apiKeyEnv ? ` and the secret ${c.apiKeyEnv}` : ''},`,
    '# and the nightly workflow (loadgate-nightly.yml) for the baseline artifact.',
    'name: loadgate-release',
    'on:',
    '  push:',
    "    tags: ['v*']",
    '  workflow_dispatch:',
    'permissions:',
    '  contents: read',
    '  actions: read   # the baseline artifact of loadgate-nightly.yml',
    'jobs:',
    '  gate:',
    '    runs-on: ubuntu-latest',
    '    steps:',
    ...loadgateStep(c, c.specs.release),
    '          baseline-artifact: loadgate-baseline',
    '          baseline-workflow: loadgate-nightly.yml',
    "          replicates: '3'",
    '          fail-on: inconclusive   # anything but a clear pass blocks the release',
    '          comment: never',
    '  capacity:',
    '    runs-on: ubuntu-latest',
    '    steps:',
    ...loadgateStep(c, c.specs.capacity, 'sweep', ['          mode: sweep']),
    '          # The first release records its sweep at result-path; commit that file, then uncomment:',
    `          # baseline: ${baseline}`,
    '          result-path: capacity-sweep.json',
    '          report-path: capacity-report.md',
    '      - uses: actions/upload-artifact@v4',
    '        if: always()',
    '        with:',
    '          name: loadgate-capacity',
    '          path: ${{ steps.sweep.outputs.result-path }}',
  ];
}

const RENDER: Record<WorkflowKind, (c: WorkflowContext) => string[]> = {
  pr: prWorkflow,
  nightly: nightlyWorkflow,
  release: releaseWorkflow,
};

export function workflowText(kind: WorkflowKind, c: WorkflowContext): string {
  return `${RENDER[kind](c).join('\n')}\n`;
}
