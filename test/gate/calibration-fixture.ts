import { CALIBRATION_KIND, CALIBRATION_VERSION, type CalibrationFile } from '../../src/gate/calibration.js';

/** A calibration file as `loadgate calibrate` writes it: `cv` per metric measured over `replicates` runs. */
export function measuredCalibration(specHash: string, cv: Record<string, number>, replicates = 10): CalibrationFile {
  return {
    kind: CALIBRATION_KIND,
    version: CALIBRATION_VERSION,
    created_at: '2026-01-01T00:00:00Z',
    spec_name: 'steady',
    spec_hash: specHash,
    target: { url: 'http://127.0.0.1:8000/v1', model: 'sim' },
    replicates,
    window_s: 30,
    cv,
  };
}
