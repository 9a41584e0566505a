import type { AnySchemaObject, ErrorObject } from 'ajv';
import { closest } from './did-you-mean.js';
import { SpecIssue } from './error.js';
import { figure } from '../numbers.js';

const TYPE_PHRASE: Record<string, string> = {
  object: 'a mapping',
  boolean: 'true or false',
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  array: 'a list',
};

/** Past this a string is described, not quoted. */
const MAX_QUOTED_CHARS = 40;

/**
 * A value as it should appear in a one-line message: short, never multi-line, and never a
 * quote of text that may be a secret. A string is quoted only when it is short and looks like
 * a setting (`"1000000h"`, `"llama-3"`); anything longer, or with whitespace, `=` or control
 * characters (a `.env` line, a pasted key), is described by its length.
 */
export function show(value: unknown): string {
  if (value === null || value === undefined) return 'empty';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return quotable(value) ? JSON.stringify(value) : `a string of ${figure(value.length)} characters`;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return 'a value';
}

// eslint-disable-next-line no-control-regex -- control characters are what may not be quoted
const quotable = (s: string) => s.length <= MAX_QUOTED_CHARS && !/[\s=\x00-\x1f\x7f]/.test(s);

/** A key from a file, as a message names it: itself when it is short and plain, else its length. */
export function showKey(key: string): string {
  return quotable(key) ? key : `(a key of ${figure(key.length)} characters)`;
}

/** The schema keywords a message is worded from. */
interface Worded {
  description?: string;
  enum?: unknown[];
  const?: unknown;
  type?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minItems?: number;
  minLength?: number;
}

/**
 * The "expected …" phrase for a schema: its description, else its enum or const, else its type
 * with its bounds ("an integer ≥ 1", "a number between 0 and 1").
 */
function expected(schema: AnySchemaObject | undefined): string {
  const s = (schema ?? {}) as Worded;
  if (s.description) return String(s.description);
  if (Array.isArray(s.enum)) return `one of ${s.enum.join(', ')}`;
  if (s.const !== undefined) return show(s.const);
  const noun = TYPE_PHRASE[String(s.type)] ?? 'a valid value';
  if (s.minimum !== undefined && s.maximum !== undefined) return `${noun} between ${s.minimum} and ${s.maximum}`;
  if (s.minimum !== undefined) return `${noun} ≥ ${s.minimum}`;
  if (s.exclusiveMinimum !== undefined) return `${noun} > ${s.exclusiveMinimum}`;
  if (s.type === 'array' && s.minItems) return 'a non-empty list';
  if (s.type === 'string' && s.minLength) return 'a non-empty string';
  return noun;
}

/**
 * The one ajv error worth showing, as a SpecIssue: the wording of every schema error, the
 * spec's and the simulator config's (src/sim/config.ts) alike. With `allErrors` ajv lists errors in
 * schema order; users read their file top to bottom, so the earliest in the document wins.
 * Needs ajv's `verbose` option (for `data` and `parentSchema`).
 */
export function issueFromErrors(errors: readonly ErrorObject[], data: unknown): SpecIssue {
  const order = documentOrder(data);
  const rank = (e: ErrorObject) => order.get(pointerOf(e)) ?? Number.MAX_SAFE_INTEGER;
  // An `if` error only says "must match then"; the then-branch's own errors say why. Of an
  // anyOf's branches, the one that reached inside the value (`auto: {growth: 1e300}`) says more
  // than the one that wanted another type altogether.
  const inside = (e: ErrorObject) => errors.some((o) => o.instancePath.startsWith(`${e.instancePath}/`));
  const useful = errors.filter((e) => e.keyword !== 'if' && !((e.keyword === 'type' || e.keyword === 'anyOf') && inside(e)));
  const first = useful.reduce((best, e) => (rank(e) < rank(best) ? e : best));
  return phrase(first);
}

function phrase(e: ErrorObject): SpecIssue {
  const path = segments(e.instancePath);
  const schema = e.parentSchema;
  if (e.keyword === 'additionalProperties') {
    const key = (e.params as { additionalProperty: string }).additionalProperty;
    const allowed = Object.keys((schema?.properties as object | undefined) ?? {});
    const guess = closest(key, allowed);
    const hint = guess ? `did you mean "${guess}"?` : `expected one of ${allowed.join(', ')}`;
    return new SpecIssue([...path, showKey(key)], `is not a known key; ${hint}`);
  }
  if (e.keyword === 'required') {
    const key = (e.params as { missingProperty: string }).missingProperty;
    const properties = schema?.properties as Record<string, AnySchemaObject> | undefined;
    return new SpecIssue([...path, key], `is missing; expected ${expected(properties?.[key])}`);
  }
  if (e.keyword === 'discriminator') {
    // ajv's discriminator (a oneOf keyed by a tag such as `dist`): the tag's value picks no branch.
    const tag = (e.params as { tag: string }).tag;
    const branches = (schema?.oneOf ?? []) as { properties?: Record<string, { const?: string }> }[];
    const tags = branches.map((branch) => branch.properties?.[tag]?.const ?? '?');
    const value = (e.data as Record<string, unknown> | undefined)?.[tag];
    return new SpecIssue([...path, tag], `is ${show(value)}; expected one of ${tags.join(', ')}`);
  }
  if (e.keyword === 'maxLength' && typeof e.data === 'string') {
    // The value itself may be megabytes: its length is what matters, not a quote of it.
    return new SpecIssue(path, `is ${figure(e.data.length)} characters long; expected at most ${e.params.limit} characters`);
  }
  return new SpecIssue(path, `is ${show(e.data)}; expected ${expected(schema)}`);
}

/** JSON pointer of the value an error is about (an unknown key points at itself, not its parent). */
function pointerOf(e: ErrorObject): string {
  return e.keyword === 'additionalProperties'
    ? `${e.instancePath}/${escape((e.params as { additionalProperty: string }).additionalProperty)}`
    : e.instancePath;
}

/** Position of every value in a depth-first walk, keyed by JSON pointer: the order the YAML was written in. */
function documentOrder(data: unknown): Map<string, number> {
  const order = new Map<string, number>();
  const visit = (value: unknown, pointer: string) => {
    order.set(pointer, order.size);
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      for (const [key, child] of Object.entries(value)) visit(child, `${pointer}/${escape(key)}`);
    }
  };
  visit(data, '');
  return order;
}

const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');
const segments = (pointer: string) =>
  pointer === ''
    ? []
    : pointer
        .slice(1)
        .split('/')
        .map((s) => showKey(s.replace(/~1/g, '/').replace(/~0/g, '~')));
