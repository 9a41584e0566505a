/**
 * The Action's log, in one place: every line goes through escapeLogLine (src/report/escape.ts),
 * so no spec name, server message or file path can put a workflow command or an ESC sequence
 * into the runner's log. A message of several lines is given as lines, each made safe alone.
 */
import * as core from '@actions/core';
import { escapeLogLine } from '../report/escape.js';

type Props = core.AnnotationProperties;

const safe = (text: string | readonly string[]) => (typeof text === 'string' ? [text] : text).map(escapeLogLine).join('\n');
const safeProps = (p?: Props): Props | undefined => (p?.title === undefined ? p : { ...p, title: escapeLogLine(p.title) });

export const info = (text: string | readonly string[]): void => core.info(safe(text));
export const notice = (text: string | readonly string[], p?: Props): void => core.notice(safe(text), safeProps(p));
export const warning = (text: string | readonly string[], p?: Props): void => core.warning(safe(text), safeProps(p));
export const error = (text: string | readonly string[], p?: Props): void => core.error(safe(text), safeProps(p));
export const setFailed = (text: string): void => core.setFailed(escapeLogLine(text));
