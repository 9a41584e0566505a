import * as log from './log.js';
import type { Verdict } from '../gate/types.js';
import { TOOL_VERSION } from '../version.js';
import type { Octokit, RunContext } from './github-context.js';
import type { CommentPolicy } from './inputs.js';
import type { StepContext } from './step.js';
import type { ReportParts } from './summary.js';

/*
 * One sticky comment per spec on a pull request: found again by the hidden marker it starts
 * with, updated in place, never duplicated. The marker also records the verdict, so
 * `comment: on-change` can tell whether anything changed.
 */

/** GitHub refuses issue comment bodies longer than this. */
export const COMMENT_LIMIT = 65_536;

const markerPrefix = (id: string) => `<!-- loadgate:${id} `;
export const marker = (id: string, verdict: Verdict) => `${markerPrefix(id)}verdict=${verdict} -->`;

/** The verdict a comment's marker records ('' if it records none), or null when the comment is not ours for `id`. */
export function markerVerdict(body: string, id: string): string | null {
  if (!body.startsWith(markerPrefix(id))) return null;
  return /^<!-- \S+ verdict=([a-z]+) -->/.exec(body)?.[1] ?? '';
}

const CUT_NOTE = "_Detail sections were left out to fit GitHub's comment size limit; the job summary has them all._";

/** Marker, head and as many detail sections as fit under `limit`; a head too long by itself is cut at a line break. */
export function commentBody(id: string, verdict: Verdict, parts: ReportParts, footer: string, limit = COMMENT_LIMIT): string {
  const build = (head: string, details: string[], cut: boolean) =>
    [marker(id, verdict), head, ...details, ...(cut ? [CUT_NOTE] : []), footer].join('\n\n');
  for (let n = parts.details.length; n >= 0; n--) {
    const body = build(parts.head, parts.details.slice(0, n), n < parts.details.length);
    if (body.length <= limit) return body;
  }
  const room = limit - build('\n…', [], true).length;
  const lineEnd = parts.head.lastIndexOf('\n', room);
  return build(`${parts.head.slice(0, lineEnd > 0 ? lineEnd : room)}\n…`, [], true);
}

export type CommentAction = { action: 'create' | 'update' | 'skip'; why: string };

/**
 * always: create or update. on-change: only when the verdict differs from the existing
 * comment's, or there is none. on-failure: only for fail or inconclusive, but an existing
 * comment is still updated so it shows the recovery. `previous` is undefined when no comment exists.
 */
export function decideComment(policy: CommentPolicy, verdict: Verdict, previous: string | null | undefined): CommentAction {
  if (policy === 'never') return { action: 'skip', why: 'comment: never' };
  if (previous === undefined) {
    if (policy === 'on-failure' && verdict === 'pass')
      return { action: 'skip', why: 'the verdict is pass and there is no earlier comment (comment: on-failure)' };
    return { action: 'create', why: 'no earlier comment' };
  }
  if (policy === 'on-change' && previous === verdict)
    return { action: 'skip', why: `the verdict is still ${verdict} (comment: on-change)` };
  return { action: 'update', why: 'an earlier comment exists' };
}

export interface StickyComment {
  owner: string;
  repo: string;
  issueNumber: number;
  id: string;
  verdict: Verdict;
  policy: CommentPolicy;
  body: string;
}

/**
 * Creates or updates the sticky comment and returns its URL. Never throws: a token that may
 * not comment (fork pull requests get a read-only one) costs one warning; the verdict stands.
 */
export async function postStickyComment(octokit: Octokit, c: StickyComment): Promise<string | undefined> {
  try {
    const existing = await findComment(octokit, c, await ownLogin(octokit));
    const decision = decideComment(c.policy, c.verdict, existing ? markerVerdict(existing.body ?? '', c.id) : undefined);
    log.info(`Pull request comment: ${decision.action} (${decision.why})`);
    if (decision.action === 'skip') return existing?.html_url;
    const { data } =
      decision.action === 'update'
        ? await octokit.rest.issues.updateComment({ owner: c.owner, repo: c.repo, comment_id: existing!.id, body: c.body })
        : await octokit.rest.issues.createComment({ owner: c.owner, repo: c.repo, issue_number: c.issueNumber, body: c.body });
    return data.html_url;
  } catch (err) {
    const status = (err as { status?: number }).status;
    const why = `${status ? `HTTP ${status}: ` : ''}${((err as Error).message ?? String(err)).split('\n')[0]}`;
    const hint =
      status === 403 || status === 404
        ? ': the token may not comment (it needs `permissions: pull-requests: write`; a pull request from a fork only gets a read-only token, see examples/workflows/fork-pr-comment.yml)'
        : '';
    log.warning(`loadgate could not comment on pull request #${c.issueNumber} (${why})${hint}. The verdict stands.`, {
      title: 'loadgate: no pull request comment',
    });
    return undefined;
  }
}

/** The login behind the token, when the API tells (a GITHUB_TOKEN may not ask: then null). */
async function ownLogin(octokit: Octokit): Promise<string | null> {
  try {
    return (await octokit.rest.users.getAuthenticated()).data.login;
  } catch {
    return null;
  }
}

/**
 * The oldest comment that starts with our marker and is ours: written by the token's own user
 * when known, else by a bot (a person quoting our marker must not have their comment overwritten).
 */
async function findComment(octokit: Octokit, c: StickyComment, login: string | null) {
  const pages = octokit.paginate.iterator(octokit.rest.issues.listComments, {
    owner: c.owner,
    repo: c.repo,
    issue_number: c.issueNumber,
    per_page: 100,
  });
  for await (const page of pages) {
    const mine = page.data.find(
      (x) => markerVerdict(x.body ?? '', c.id) !== null && (login ? x.user?.login === login : x.user?.type === 'Bot'),
    );
    if (mine) return mine;
  }
  return undefined;
}

/** The report as the sticky comment on pull request `issueNumber`, as the comment input allows; returns its URL when one was posted. */
export async function postReportComment(
  { inputs, ctx, octokit }: StepContext,
  id: string,
  issueNumber: number,
  verdict: Verdict,
  parts: ReportParts,
  foot: string,
): Promise<string | undefined> {
  if (inputs.comment === 'never') return undefined;
  if (!inputs.githubToken || !ctx.repo) {
    log.info('No github-token or repository: no pull request comment');
    return undefined;
  }
  return postStickyComment(octokit(), {
    ...ctx.repo,
    issueNumber,
    id,
    verdict,
    policy: inputs.comment,
    body: commentBody(id, verdict, parts, foot),
  });
}

/** The comment's last line: tool version, commit, and a link to the run. */
export function reportFooter(ctx: RunContext): string {
  const commit = ctx.sha ? ` · commit ${ctx.sha.slice(0, 7)}` : '';
  const link = ctx.runUrl ? ` · [job summary and full report](${ctx.runUrl})` : '';
  return `<sub>loadgate ${TOOL_VERSION}${commit}${link}</sub>`;
}
