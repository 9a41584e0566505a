import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../package-root.js';
import { parseSpec } from '../spec/load.js';
import { SPEC_SCHEMA_ID } from '../spec/schema-id.js';
import { parseCommandArgs } from './args.js';
import { EXIT, UsageError } from './errors.js';
import { probeTarget, type TargetFacts } from './init-probe.js';
import { ServedModelError } from '../run/served-model.js';
import { specText, type SpecKind, type SpecTarget } from './init-specs.js';
import { WORKFLOW_FILES, workflowText, type WorkflowKind } from './init-workflows.js';

export const INIT_HELP = `Usage: loadgate init [--target-url URL] [--api-key-env NAME] [--model M] [--api chat|completions]
                    [--dir bench] [--workflow pr|nightly|release|all] [--force]

Writes a commented benchmark spec and the GitHub workflows that use it, then prints what it
wrote and the command to run next. Never asks a question.

With --target-url, init reads the server's model list (GET /models; --model is checked
against it, and may be left out when it lists one), picks the token-calibration method the
server supports, and sends a few requests one at a time to measure its service floor; the
spec's rate and SLOs are suggested from that floor, and its comments say how. Without a
target the spec is for the embedded simulator (target.url: sim).

Files: DIR/chat.yml always; with --workflow nightly also DIR/soak.yml, with release also
DIR/release.yml and DIR/capacity.yml; each workflow goes to .github/workflows/loadgate-<kind>.yml.

Options:
  --target-url URL    the server's OpenAI base URL, e.g. http://127.0.0.1:8000/v1 (default: sim)
  --api-key-env NAME  the environment variable holding the API key (read now to probe; the spec
                      and workflows name the variable, never the key)
  --model M           the model to benchmark (default: the one the server lists)
  --api API           chat (default) or completions
  --dir DIR           where the specs go (default: bench)
  --workflow KIND     pr, nightly, release or all; repeatable (default: none)
  --force             overwrite files that exist (default: refuse, naming them)
  -h, --help          this help

Exit codes: 0 written, 3 error (a file exists, the target cannot be probed, a bad flag).`;

const KINDS: readonly WorkflowKind[] = ['pr', 'nightly', 'release'];

interface InitOptions {
  targetUrl: string;
  apiKeyEnv?: string;
  model?: string;
  api: 'chat' | 'completions';
  dir: string;
  workflows: WorkflowKind[];
  force: boolean;
}

export async function initCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('init', argv, {
    'target-url': { type: 'string' },
    'api-key-env': { type: 'string' },
    model: { type: 'string' },
    api: { type: 'string', default: 'chat' },
    dir: { type: 'string', default: 'bench' },
    workflow: { type: 'string', multiple: true, default: [] },
    force: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  });
  if (values.help) {
    process.stdout.write(`${INIT_HELP}\n`);
    return EXIT.pass;
  }
  if (positionals.length > 0) throw new UsageError(`loadgate init takes no file argument (got ${positionals[0]}); use --dir DIR`);
  const o = initOptions(values);
  const written = await writeInit(o, process.cwd());
  process.stdout.write(`${written.notices.map((n) => `${n}\n`).join('')}${written.files.map((f) => `wrote ${f}\n`).join('')}`);
  process.stdout.write(`next: loadgate run ${written.files[0]} --out result.json\n`);
  return EXIT.pass;
}

function initOptions(values: {
  'target-url'?: string;
  'api-key-env'?: string;
  model?: string;
  api: string;
  dir: string;
  workflow: string[];
  force: boolean;
}): InitOptions {
  if (values.api !== 'chat' && values.api !== 'completions')
    throw new UsageError(`--api ${values.api} is not an API; expected chat or completions`);
  const workflows = new Set<WorkflowKind>();
  for (const w of values.workflow) {
    if (w === 'all') KINDS.forEach((k) => workflows.add(k));
    else if ((KINDS as readonly string[]).includes(w)) workflows.add(w as WorkflowKind);
    else throw new UsageError(`--workflow ${w} is not a workflow; expected pr, nightly, release or all`);
  }
  if (isAbsolute(values.dir) || values.dir.split(/[\\/]/).includes('..'))
    throw new UsageError(`--dir ${values.dir} must be a path inside this repository, such as bench`);
  return {
    targetUrl: values['target-url'] ?? 'sim',
    apiKeyEnv: values['api-key-env'],
    model: values.model,
    api: values.api,
    dir: values.dir,
    workflows: KINDS.filter((k) => workflows.has(k)),
    force: values.force,
  };
}

/** The specs a set of workflows needs: the gate's always, then each workflow's own. */
function specKinds(workflows: readonly WorkflowKind[]): SpecKind[] {
  return [
    'chat',
    ...(workflows.includes('nightly') ? (['soak'] as const) : []),
    ...(workflows.includes('release') ? (['release', 'capacity'] as const) : []),
  ];
}

/** Writes the files for `o` under `root` (refusing, before writing any, to overwrite one without --force). */
export async function writeInit(o: InitOptions, root: string): Promise<{ files: string[]; notices: string[] }> {
  const kinds = specKinds(o.workflows);
  const specPath = (k: SpecKind) => `${o.dir.replace(/\/+$/, '')}/${k}.yml`;
  const paths = [...kinds.map(specPath), ...o.workflows.map((w) => WORKFLOW_FILES[w])];
  const existing = paths.filter((p) => existsSync(join(root, p)));
  if (existing.length > 0 && !o.force)
    throw new UsageError(`${existing.join(', ')} already exist${existing.length === 1 ? 's' : ''}; pass --force to overwrite`);
  const target: SpecTarget = {
    url: o.targetUrl,
    api: o.api,
    apiKeyEnv: o.apiKeyEnv,
    schemaRef: schemaRef(root, join(root, o.dir)),
  };
  const notices: string[] = [];
  if (o.targetUrl !== 'sim') {
    target.facts = await learnTarget(o);
    if (target.facts.modelNotice) notices.push(target.facts.modelNotice);
    notices.push(floorNotice(target.facts));
  }
  const texts = new Map<string, string>(kinds.map((k) => [specPath(k), specText(k, target)]));
  for (const [path, text] of texts) parseSpec(text, path, { [o.apiKeyEnv ?? '']: 'set' }); // what init writes, validate accepts
  const specs = { chat: specPath('chat'), soak: specPath('soak'), release: specPath('release'), capacity: specPath('capacity') };
  for (const w of o.workflows) texts.set(WORKFLOW_FILES[w], workflowText(w, { specs, apiKeyEnv: o.apiKeyEnv, sim: o.targetUrl === 'sim' }));
  for (const [path, text] of texts) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return { files: [...texts.keys()], notices };
}

/** A draft spec (validated as any spec is: the URL, the key's variable) to probe the target with. */
async function learnTarget(o: InitOptions): Promise<TargetFacts> {
  const draft = [
    'target:',
    `  url: ${JSON.stringify(o.targetUrl)}`,
    `  api: ${o.api}`,
    ...(o.model !== undefined ? [`  model: ${JSON.stringify(o.model)}`] : []),
    ...(o.apiKeyEnv !== undefined ? [`  api_key_env: ${JSON.stringify(o.apiKeyEnv)}`] : []),
  ].join('\n');
  const resolved = parseSpec(draft, '--target-url');
  try {
    return await probeTarget(resolved);
  } catch (e) {
    // The run's own model check words its advice for a spec; here the model is a flag.
    if (e instanceof ServedModelError) throw new UsageError(e.message.replace(/target\.model/g, '--model'));
    throw e;
  }
}

function floorNotice(f: TargetFacts): string {
  const { ttftMs, tpotMs, e2eMs, requests } = f.floor;
  return `service floor over ${requests} requests one at a time: TTFT ${ttftMs.toFixed(1)} ms, TPOT ${tpotMs.toFixed(1)} ms, E2E ${e2eMs.toFixed(1)} ms; calibrate: ${f.calibrate}`;
}

/**
 * Where editors find the spec schema: this package's own file, relative to the spec, when the
 * package sits inside the project (node_modules or a clone); else that file's URL on this machine
 * (a run through npx or a global install). The $id names the schema but is not served anywhere.
 */
function schemaRef(root: string, specDir: string): string {
  const pkg = packageRoot();
  const file = join(pkg, 'schema', 'spec.schema.json');
  const inside = relative(resolve(root), pkg);
  if (!existsSync(file)) return SPEC_SCHEMA_ID;
  if (!inside.startsWith('..') && !isAbsolute(inside)) return relative(resolve(specDir), file).split(sep).join('/');
  return pathToFileURL(file).href;
}
