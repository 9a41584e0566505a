export type Verdict = 'pass' | 'fail' | 'inconclusive';

export interface RuleOutcome {
  /** e.g. "goodput.fraction ≥ 0.99" */
  rule: string;
  status: 'pass' | 'fail' | 'warn' | 'inconclusive';
  current: number | null;
  baseline: number | null;
  reason: string;
}

export interface GateReport {
  verdict: Verdict;
  /** One line each: why the verdict is what it is. */
  reasons: string[];
  rules: RuleOutcome[];
}
