import { readFileSync } from 'node:fs';
import * as log from './log.js';
import { parse as parseYaml } from 'yaml';

import type { Progress } from '../run/run.js';
import { runReplicatesMerged } from '../run/replicates.js';
import { readSpec, SpecError } from '../spec/load.js';
import { applyOverrides } from '../spec/override.js';
import type { ResolvedSpec } from '../spec/types.js';
import type { ActionInputs } from './inputs.js';
import { checkCredentialTarget, credentialHeaders, maskSecret, specHost } from './secrets.js';
import type { Result } from '../result/types.js';

/**
 * The spec as the action runs it: the api-key input stands in for the variable that
 * target.api_key_env names, target-url and wait-for-ready override the file. Credential
 * values are masked before anything else happens, and refused for hosts not allowed.
 */
export function loadActionSpec(inputs: ActionInputs): ResolvedSpec {
  const loaded = readSpec(inputs.spec, inputs.apiKey ? envWithKey(inputs.spec, inputs.apiKey) : process.env);
  const withKey = inputs.apiKey ? { ...loaded, apiKey: inputs.apiKey } : loaded;
  for (const name of credentialHeaders(withKey)) maskSecret(withKey.headers[name]);
  maskSecret(withKey.apiKey);

  let resolved: ResolvedSpec;
  try {
    resolved = applyOverrides(withKey, { targetUrl: inputs.targetUrl });
  } catch (err) {
    // The override step names the CLI flag; here it was an input.
    if (err instanceof SpecError) throw new SpecError(err.message.replace(/^--target-url\b/, 'input target-url'));
    throw err;
  }
  const credentials = [...(resolved.apiKey ? ['the API key'] : []), ...credentialHeaders(resolved).map((h) => `header ${h}`)];
  if (credentials.length > 0) {
    const allowed = inputs.allowedHosts ?? specHost(loaded.spec.target.url);
    checkCredentialTarget(resolved.spec.target.url, allowed, credentials.join(' and '));
    // The A/B baseline deployment receives the same headers and key.
    if (inputs.baselineUrl) checkCredentialTarget(inputs.baselineUrl, allowed, credentials.join(' and '));
    // So does the server view's /metrics: the spec (a fork's, maybe) cannot widen the hosts the workflow allows.
    const metricsUrl = resolved.spec.target.metrics_url;
    if (typeof metricsUrl === 'string' && resolved.spec.target.url !== 'sim')
      checkCredentialTarget(metricsUrl, allowed, credentials.join(' and '));
  }
  return inputs.waitForReadyMs === undefined ? resolved : { ...resolved, readyTimeoutMs: inputs.waitForReadyMs };
}

/** The environment with the key under the name the spec's api_key_env gives, so readSpec finds it there. */
function envWithKey(path: string, apiKey: string): NodeJS.ProcessEnv {
  let name: unknown;
  try {
    name = (parseYaml(readFileSync(path, 'utf8')) as { target?: { api_key_env?: unknown } } | null)?.target?.api_key_env;
  } catch {
    // readSpec reads the file again and reports the problem properly.
  }
  return typeof name === 'string' ? { ...process.env, [name]: apiKey } : process.env;
}

/**
 * The Action's benchmark: `replicates` windows (the input; else the spec's load.replicates),
 * run and merged by runReplicatesMerged, with a CI log line per replicate and every 5 s.
 */
export async function runActionBenchmark(resolved: ResolvedSpec, replicates: number, signal: AbortSignal): Promise<Result> {
  const n = replicates > 1 ? replicates : resolved.spec.load.replicates;
  let label = '';
  const onReplicate = (i: number) => {
    label = n > 1 ? `replicate ${i + 1}/${n}: ` : '';
    log.info(
      `${label}running ${resolved.spec.name} against ${resolved.spec.target.url === 'sim' ? 'the embedded simulator' : new URL(resolved.spec.target.url).host}`,
    );
  };
  return runReplicatesMerged(
    { resolved, signal, onProgress: progressLogger(() => label), onNotice: (line) => log.info(line) },
    n,
    onReplicate,
  );
}

/** A plain log line every 5 s: a CI log is not a terminal. */
function progressLogger(label: () => string): (p: Progress) => void {
  let last = -Infinity;
  return (p) => {
    if (p.elapsedS - last < 5 && p.elapsedS >= last) return;
    last = p.elapsedS;
    log.info(
      `${label()}${p.elapsedS.toFixed(0)}/${p.totalS.toFixed(0)} s ${p.phase}: sent ${p.sent}, ok ${p.ok}, failed ${p.failed}, in flight ${p.inFlight}`,
    );
  };
}
