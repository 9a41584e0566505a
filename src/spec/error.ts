/** A spec problem as the user should read it: one line, `<file or flag>: <where> <what is wrong>; expected <what>`. */
export class SpecError extends Error {
  override name = 'SpecError';
}

/**
 * A problem located inside the spec, before we know how to name its source:
 * the loader prefixes it with the file name, the override step with the flag.
 */
export class SpecIssue extends Error {
  constructor(
    readonly path: readonly string[],
    readonly problem: string,
  ) {
    super(`${path.length ? path.join('.') : 'top level'} ${problem}`);
  }
}
