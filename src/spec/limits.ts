/**
 * The stated limits of what one run can do, checked when a spec is resolved (so `validate`
 * refuses what `run` could not do) and quoted in the messages. Each is far beyond any sensible
 * benchmark and well inside what the process can hold.
 */

/**
 * Scheduled requests per run (per generator of a sharded run). The open-loop schedule is one
 * float64 per request, computed up front (10 million: 80 MB), and every request keeps a record
 * until the run ends; past this a run exhausts memory before it measures anything.
 */
export const MAX_SCHEDULED_REQUESTS = 10_000_000;

/**
 * Any one duration (warmup, steady, cooldown, request and ready timeouts). Node's timers hold
 * at most 2^31 − 1 ms (24.8 days) and fire at once beyond it, and a CI job that runs for longer
 * than a day is a mistake, not a benchmark.
 */
export const MAX_DURATION_MS = 24 * 3_600_000;

/**
 * Tokens a request asks for (input or output) and any token count a file gives. The largest
 * context windows hold a few million; a prompt is built as text per request, so a length past
 * this makes the generator build gigabytes, and a length in the billions cannot be built.
 */
export const MAX_TOKENS_PER_REQUEST = 2_000_000;

/**
 * Closed-loop concurrency and the in-flight cap: each request in flight holds a connection and
 * its record. Past these one generator process runs out of sockets and memory before the
 * server is loaded; a larger load is split over shards (--shard K/N).
 */
export const MAX_CONCURRENCY = 10_000;
export const MAX_IN_FLIGHT = 100_000;

/** The spec file: a spec is a page of YAML; data (prompts, lengths) lives in the files it names. */
export const MAX_SPEC_BYTES = 1024 * 1024;

/**
 * A dataset: ShareGPT's cleaned split is 640 MB of pretty-printed JSON, more than one string
 * can hold (V8: 2^29 characters); a dataset is sampled, so a few hundred thousand entries are
 * plenty, and the file is held in every generator thread.
 */
export const MAX_DATASET_BYTES = 256 * 1024 * 1024;
export const MAX_DATASET_ENTRIES = 1_000_000;

/** A length file: one length (or length,count) a line; counts say the rest. */
export const MAX_LENGTH_FILE_BYTES = 16 * 1024 * 1024;
export const MAX_LENGTH_FILE_LINES = 1_000_000;

/** A result file: a run's histograms and time series are a few hundred kB; this leaves room for long, fine-grained runs. */
export const MAX_RESULT_BYTES = 64 * 1024 * 1024;

/** Names and models are labels in reports; paths, URLs and header values have their own protocol limits. */
export const MAX_NAME_CHARS = 256;
export const MAX_URL_CHARS = 2048;
export const MAX_PATH_CHARS = 4096;
export const MAX_HEADER_VALUE_CHARS = 8192;

/** `1e7` → `10,000,000`: figures in messages read as written. */
export { figure } from '../numbers.js';

/** `MAX_SPEC_BYTES` → `1 MiB`. */
export const bytes = (n: number): string => (n >= 1024 * 1024 ? `${n / (1024 * 1024)} MiB` : `${n / 1024} KiB`);
