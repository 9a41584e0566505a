/**
 * The $ids of the JSON Schema files shipped in schema/ (written by scripts/docs.mjs from the
 * schemas in src/). Editors read a spec's schema from its `# yaml-language-server: $schema=…` line.
 */
export const SCHEMA_BASE = 'https://loadgate.dev/schema/';
export const SPEC_SCHEMA_ID = `${SCHEMA_BASE}spec.schema.json`;
