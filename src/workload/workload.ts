import { randomInt } from 'node:crypto';
import { calibrateWorkload, type CalibrationTarget } from './calibrate.js';
import { datasetWorkload } from './dataset-workload.js';
import type { WorkloadInputs } from './inputs.js';
import { sessionWorkload } from './sessions.js';
import { syntheticWorkload } from './synthetic.js';
import { traceWorkload } from './trace.js';
import type { Calibration, Workload } from './types.js';
import { modelOf } from '../spec/model.js';

/*
 * The workload stage's front: the files it reads (inputs.ts), the calibration against the
 * target (calibrate.ts), then the request generator, synthetic (synthetic.ts) or from a
 * dataset (dataset-workload.ts), which describes itself for the result (describe.ts).
 */

/** Calibrates against the target as `workload.calibrate` says, then returns the generator. */
export async function prepareWorkload(inputs: WorkloadInputs, target: Omit<CalibrationTarget, 'api' | 'model'>): Promise<Workload> {
  const salt = randomInt(1, 2 ** 31);
  const calibration = await calibrateWorkload(inputs, { ...target, api: inputs.spec.target.api, model: modelOf(inputs.spec) }, salt + 1);
  return createWorkload(inputs, calibration, salt);
}

/**
 * The generator, given a calibration and the run's prompt salt: pure and seeded, so the same
 * spec, calibration and salt give the same requests. Input lengths, output lengths, prefix
 * groups and dataset picks draw from separate streams, so changing one never moves another.
 */
export function createWorkload(inputs: WorkloadInputs, calibration: Calibration, salt: number): Workload {
  if (inputs.spec.workload.sessions) return sessionWorkload(inputs, calibration, salt);
  if (inputs.trace) return traceWorkload(inputs, inputs.trace, calibration, salt);
  return inputs.dataset ? datasetWorkload(inputs, inputs.dataset, calibration, salt) : syntheticWorkload(inputs, calibration, salt);
}
