import type { Octokit } from './github-context.js';

/**
 * The history on a branch of the repository, committed with the workflow's token through the
 * REST git data API (as github-action-benchmark keeps its data on gh-pages, without a checkout
 * or a git binary): read the branch's head and the file in it, write a tree on top of it and a
 * commit, and move the branch to it fast-forward only. When another job pushed in between, the
 * move is rejected (422) and the whole read-change-write is done again on the new head, so no
 * line of the other job is lost.
 */
export interface BranchTarget {
  owner: string;
  repo: string;
  branch: string;
}

/** How often a rejected push is retried, and the first wait between tries (it doubles each time). */
export const PUSH_ATTEMPTS = 5;
const RETRY_BASE_MS = 250;

const status = (err: unknown) => (err as { status?: number }).status;

/** The commit at the head of the branch, or null when the branch does not exist yet. */
async function headOf(o: Octokit, t: BranchTarget): Promise<string | null> {
  try {
    const r = await o.request('GET /repos/{owner}/{repo}/git/ref/{ref}', { owner: t.owner, repo: t.repo, ref: `heads/${t.branch}` });
    return r.data.object.sha;
  } catch (err) {
    if (status(err) === 404) return null;
    throw branchError(t, 'read', err);
  }
}

/** A file's text at a commit; '' when the file is not there. */
export async function fileAt(o: Octokit, t: BranchTarget, path: string, commit: string | null): Promise<string> {
  if (commit === null) return '';
  try {
    const r = await o.request('GET /repos/{owner}/{repo}/contents/{path}', { owner: t.owner, repo: t.repo, path, ref: commit });
    const file = r.data as { type?: string; encoding?: string; content?: string; sha?: string };
    if (file.type !== 'file') throw new Error(`${path} on branch ${t.branch} is not a file`);
    if (file.encoding === 'base64') return Buffer.from(file.content ?? '', 'base64').toString('utf8');
    // Past 1 MB the contents API leaves the content out: read the blob instead.
    const blob = await o.request('GET /repos/{owner}/{repo}/git/blobs/{file_sha}', { owner: t.owner, repo: t.repo, file_sha: file.sha! });
    return Buffer.from(blob.data.content, 'base64').toString('utf8');
  } catch (err) {
    if (status(err) === 404) return '';
    throw branchError(t, 'read', err);
  }
}

/** The history as the branch holds it now. */
export async function readBranchFile(o: Octokit, t: BranchTarget, path: string): Promise<string> {
  return fileAt(o, t, path, await headOf(o, t));
}

/** A commit of `files` on top of `parent` (a first, parentless commit when the branch is new). */
async function commitFiles(o: Octokit, t: BranchTarget, parent: string | null, files: Record<string, string>, message: string) {
  const base = parent
    ? (await o.request('GET /repos/{owner}/{repo}/git/commits/{commit_sha}', { owner: t.owner, repo: t.repo, commit_sha: parent })).data
        .tree.sha
    : undefined;
  const tree = await o.request('POST /repos/{owner}/{repo}/git/trees', {
    owner: t.owner,
    repo: t.repo,
    ...(base ? { base_tree: base } : {}),
    tree: Object.entries(files).map(([path, content]) => ({ path, mode: '100644' as const, type: 'blob' as const, content })),
  });
  const commit = await o.request('POST /repos/{owner}/{repo}/git/commits', {
    owner: t.owner,
    repo: t.repo,
    message,
    tree: tree.data.sha,
    parents: parent ? [parent] : [],
  });
  return commit.data.sha;
}

/** Moves the branch to `sha`, fast-forward only; false when someone else pushed first. */
async function moveBranch(o: Octokit, t: BranchTarget, parent: string | null, sha: string): Promise<boolean> {
  try {
    if (parent === null)
      await o.request('POST /repos/{owner}/{repo}/git/refs', { owner: t.owner, repo: t.repo, ref: `refs/heads/${t.branch}`, sha });
    else
      await o.request('PATCH /repos/{owner}/{repo}/git/refs/{ref}', {
        owner: t.owner,
        repo: t.repo,
        ref: `heads/${t.branch}`,
        sha,
        force: false,
      });
    return true;
  } catch (err) {
    if (status(err) === 422 || status(err) === 409) return false;
    throw branchError(t, 'write', err);
  }
}

/**
 * Reads `path` at the branch's head, commits what `change` makes of it (every file it returns),
 * and moves the branch; on a rejected push, again from the new head, up to PUSH_ATTEMPTS times.
 * Returns what `change` returned for the commit that landed and how many pushes were rejected.
 */
export async function updateBranch<T extends { files: Record<string, string> }>(
  o: Octokit,
  t: BranchTarget,
  path: string,
  change: (text: string) => T | null,
  message: string,
): Promise<{ done: T | null; rejected: number }> {
  for (let attempt = 0; attempt < PUSH_ATTEMPTS; attempt++) {
    const head = await headOf(o, t);
    const done = change(await fileAt(o, t, path, head));
    if (done === null) return { done, rejected: attempt };
    const sha = await commitFiles(o, t, head, done.files, message).catch((err: unknown) => {
      throw branchError(t, 'write', err);
    });
    if (await moveBranch(o, t, head, sha)) return { done, rejected: attempt };
    await new Promise((r) => setTimeout(r, RETRY_BASE_MS * 2 ** attempt));
  }
  throw new Error(
    `input history-branch ${t.branch}: the push was rejected ${PUSH_ATTEMPTS} times because other jobs kept pushing to it; expected one writer at a time (a concurrency group on the nightly workflow)`,
  );
}

function branchError(t: BranchTarget, what: 'read' | 'write', err: unknown): Error {
  const code = status(err);
  const fix =
    code === 403 || code === 401
      ? what === 'write'
        ? 'give the job `permissions: contents: write`'
        : 'give the job `permissions: contents: read`'
      : 'check the branch name and the token';
  return new Error(`input history-branch ${t.branch}: cannot ${what} the history (HTTP ${code ?? (err as Error).message}); ${fix}`, {
    cause: err,
  });
}
