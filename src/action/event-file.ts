import { bytes, MAX_RESULT_BYTES } from '../spec/limits.js';
import { jsonProblem, readFileCapped, ReadFileError } from '../spec/read-file.js';

/**
 * Why the runner's event payload (GITHUB_EVENT_PATH) cannot be read, or null when it can (or
 * there is none). @actions/github parses it with JSON.parse the moment it is imported, so a
 * malformed one would crash the step with a stack trace before any of loadgate runs: it is
 * checked first, and the message names the file, never its contents.
 */
export function eventFileProblem(path = process.env.GITHUB_EVENT_PATH): string | null {
  if (!path) return null;
  let text: string;
  try {
    text = readFileCapped(path, MAX_RESULT_BYTES);
  } catch (err) {
    if (!(err instanceof ReadFileError)) throw err;
    // A missing payload is what @actions/github tolerates too (it warns and reads none).
    if (err.reason === 'file not found') return null;
    return `the event payload GITHUB_EVENT_PATH ${path}: ${err.reason}${err.tooLarge ? `; expected at most ${bytes(MAX_RESULT_BYTES)}` : ''}`;
  }
  try {
    JSON.parse(text);
    return null;
  } catch (err) {
    return `the event payload GITHUB_EVENT_PATH ${path} is not valid JSON (${jsonProblem(err, text)}); expected the runner's event file`;
  }
}
