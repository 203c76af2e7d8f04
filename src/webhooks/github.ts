/**
 * GitHub repository/organization webhook events (https://docs.github.com/en/webhooks/webhook-events-and-payloads)
 * turned into short Markdown messages. Gitea and Forgejo "Gitea" webhooks send the same
 * X-GitHub-Event header and largely the same payloads, so they work here too.
 */
import { badRequest } from '../errors.js';
import { escapeMarkdown, firstLine, isPlainObject, parseJsonField, truncate } from './text.js';
import { CONTENT_MAX } from './types.js';
import type { WebhookPost } from './types.js';

type Json = Record<string, unknown>;

/** Events that can produce a message; every other event is acknowledged and ignored. */
export const GITHUB_EVENTS = ['ping', 'push', 'pull_request', 'issues', 'issue_comment', 'release', 'workflow_run'] as const;

const MAX_COMMITS_LISTED = 10;
const COMMIT_SUMMARY_MAX = 72;

/** Reads fields of one event's payload, failing with a 400 that names the event and path. */
class PayloadReader {
  constructor(private readonly event: string) {}

  fail(path: string, what: string): never {
    throw badRequest(`${this.event} payload: ${path} ${what}`);
  }

  object(o: Json, key: string, path = key): Json {
    const v = o[key];
    if (!isPlainObject(v)) this.fail(path, 'must be an object');
    return v;
  }

  optionalObject(o: Json, key: string, path = key): Json | undefined {
    const v = o[key];
    if (v === undefined || v === null) return undefined;
    if (!isPlainObject(v)) this.fail(path, 'must be an object');
    return v;
  }

  string(o: Json, key: string, path = key): string {
    const v = o[key];
    if (typeof v !== 'string') this.fail(path, 'must be a string');
    return v;
  }

  /** Optional text: absent, null or "" → undefined; other non-strings are refused. */
  optionalString(o: Json, key: string, path = key): string | undefined {
    const v = o[key];
    if (v === undefined || v === null || v === '') return undefined;
    if (typeof v !== 'string') this.fail(path, 'must be a string');
    return v;
  }

  number(o: Json, key: string, path = key): number {
    const v = o[key];
    if (typeof v !== 'number' || !Number.isFinite(v)) this.fail(path, 'must be a number');
    return v;
  }

  array(o: Json, key: string, path = key): unknown[] {
    const v = o[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) this.fail(path, 'must be an array');
    return v;
  }

  /** `[owner/name](html_url)` of the payload's repository. */
  repo(body: Json): { name: string; url: string; link: string } {
    const repo = this.object(body, 'repository');
    const name = this.string(repo, 'full_name', 'repository.full_name');
    const url = this.string(repo, 'html_url', 'repository.html_url');
    return { name, url, link: link(name, url) };
  }

  /** Login of whoever caused the event. */
  sender(body: Json): string {
    const sender = this.optionalObject(body, 'sender');
    return (sender && this.optionalString(sender, 'login', 'sender.login')) ?? 'someone';
  }
}

function link(label: string, url: string): string {
  return `[${escapeMarkdown(label)}](${url.replace(/[ ()]/g, (c) => encodeURIComponent(c))})`;
}

function bold(s: string): string {
  return `**${escapeMarkdown(s)}**`;
}

function code(s: string): string {
  return `\`${s.replace(/`/g, "'")}\``;
}

/** A Markdown quote of the start of a (Markdown) body. */
function quote(body: string | undefined, maxChars: number, maxLines = 6): string | undefined {
  const text = body?.replace(/\r\n?/g, '\n').trim();
  if (!text) return undefined;
  let lines = text.split('\n');
  const cut = lines.length > maxLines;
  if (cut) lines = lines.slice(0, maxLines);
  let excerpt = truncate(lines.join('\n'), maxChars);
  if (cut && !excerpt.endsWith('…')) excerpt += '…';
  return excerpt
    .split('\n')
    .map((l) => `> ${l}`)
    .join('\n');
}

function post(lines: (string | undefined)[]): WebhookPost {
  const content = truncate(lines.filter((l): l is string => l !== undefined && l !== '').join('\n'), CONTENT_MAX);
  // An issue title or commit message that says @everyone pings no one.
  return { content, username: 'GitHub', embeds: [], allowedMentions: { parse: [] } };
}

/** The event's issue or pull request, whose thread a webhook may keep (docs/webhooks.md#threads). */
function topic(p: WebhookPost, repo: string, number: number, title: string): WebhookPost {
  return { ...p, thread: { kind: 'topic', key: `${repo}#${number}`, name: `#${number} ${title}` } };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function ping(r: PayloadReader, body: Json): WebhookPost {
  const zen = r.optionalString(body, 'zen');
  const hook = r.optionalObject(body, 'hook');
  const repo = r.optionalObject(body, 'repository');
  const org = r.optionalObject(body, 'organization');

  let target = '';
  if (repo) {
    target = ` for ${link(r.string(repo, 'full_name', 'repository.full_name'), r.string(repo, 'html_url', 'repository.html_url'))}`;
  } else if (org) {
    target = ` for organization ${bold(r.string(org, 'login', 'organization.login'))}`;
  }

  const details: string[] = [];
  const hookId = body.hook_id ?? hook?.id;
  if (typeof hookId === 'number' || typeof hookId === 'string') details.push(`hook ${hookId}`);
  if (hook) {
    const events = r.array(hook, 'events', 'hook.events').filter((e): e is string => typeof e === 'string');
    if (events.length > 0) details.push(`events: ${events.map(escapeMarkdown).join(', ')}`);
  }
  const suffix = details.length > 0 ? ` (${details.join(', ')})` : '';
  return post([`GitHub webhook connected${target}${suffix}.`, zen === undefined ? undefined : `> ${zen}`]);
}

function push(r: PayloadReader, body: Json): WebhookPost {
  const ref = r.string(body, 'ref');
  const repo = r.repo(body);
  const isTag = ref.startsWith('refs/tags/');
  const kind = isTag ? 'tag' : 'branch';
  const name = ref.replace(/^refs\/(heads|tags)\//, '');
  const refLink = link(name, `${repo.url}/tree/${encodeURI(name)}`);

  const pusherObj = r.optionalObject(body, 'pusher');
  // GitHub's pusher has `name`; Gitea's is a user object with `login`/`username`.
  const pusher =
    (pusherObj &&
      (r.optionalString(pusherObj, 'name', 'pusher.name') ??
        r.optionalString(pusherObj, 'login', 'pusher.login') ??
        r.optionalString(pusherObj, 'username', 'pusher.username'))) ??
    r.sender(body);

  if (body.deleted === true) {
    return post([`${bold(pusher)} deleted ${kind} ${code(name)} in ${repo.link}`]);
  }

  const commits = r.array(body, 'commits').map((c, i) => {
    const path = `commits[${i}]`;
    if (!isPlainObject(c)) r.fail(path, 'must be an object');
    const id = r.string(c, 'id', `${path}.id`);
    const message = r.string(c, 'message', `${path}.message`);
    const url = r.optionalString(c, 'url', `${path}.url`) ?? `${repo.url}/commit/${id}`;
    const author = r.optionalObject(c, 'author', `${path}.author`);
    const authorName = author && r.optionalString(author, 'name', `${path}.author.name`);
    return { id, message, url, authorName };
  });

  // GitHub lists at most 20 commits; Gitea adds total_commits for the real count.
  const total = typeof body.total_commits === 'number' ? body.total_commits : commits.length;
  const compare = r.optionalString(body, 'compare') ?? r.optionalString(body, 'compare_url');

  if (commits.length === 0) {
    const verb = body.created === true ? `created ${kind}` : `pushed to ${kind}`;
    return post([`${bold(pusher)} ${verb} ${refLink} in ${repo.link}`]);
  }

  const verb = body.forced === true ? 'force-pushed' : 'pushed';
  const compareLink = compare === undefined ? '' : ` (${link('compare', compare)})`;
  const lines = [`${bold(pusher)} ${verb} ${plural(total, 'commit')} to ${refLink} in ${repo.link}${compareLink}`];
  for (const c of commits.slice(0, MAX_COMMITS_LISTED)) {
    const summary = escapeMarkdown(truncate(firstLine(c.message).trim(), COMMIT_SUMMARY_MAX));
    const by = c.authorName === undefined ? '' : ` - ${escapeMarkdown(c.authorName)}`;
    lines.push(`- [${code(c.id.slice(0, 7))}](${c.url}) ${summary}${by}`);
  }
  const unlisted = total - Math.min(commits.length, MAX_COMMITS_LISTED);
  if (unlisted > 0) lines.push(`- …and ${unlisted} more`);
  return post(lines);
}

function pullRequest(r: PayloadReader, body: Json): WebhookPost | null {
  const p = pullRequestPost(r, body);
  if (!p) return null;
  const pr = r.object(body, 'pull_request');
  return topic(p, r.repo(body).name, r.number(pr, 'number', 'pull_request.number'), r.string(pr, 'title', 'pull_request.title'));
}

function pullRequestPost(r: PayloadReader, body: Json): WebhookPost | null {
  const action = r.string(body, 'action');
  if (!['opened', 'reopened', 'closed', 'ready_for_review', 'converted_to_draft'].includes(action)) return null;

  const pr = r.object(body, 'pull_request');
  const repo = r.repo(body);
  const number = r.number(pr, 'number', 'pull_request.number');
  const title = r.string(pr, 'title', 'pull_request.title');
  const url = r.string(pr, 'html_url', 'pull_request.html_url');
  const user = r.optionalObject(pr, 'user', 'pull_request.user');
  const author = user && r.optionalString(user, 'login', 'pull_request.user.login');
  const base = r.optionalObject(pr, 'base', 'pull_request.base');
  const head = r.optionalObject(pr, 'head', 'pull_request.head');
  const baseRef = base && r.optionalString(base, 'ref', 'pull_request.base.ref');
  const headRef = head && r.optionalString(head, 'ref', 'pull_request.head.ref');
  const actor = r.sender(body);

  const prLink = link(`#${number} ${title}`, url);
  const byAuthor = author !== undefined && author !== actor ? ` by ${bold(author)}` : '';
  const where = ` in ${repo.link}`;

  switch (action) {
    case 'opened': {
      const what = pr.draft === true ? 'opened draft pull request' : 'opened pull request';
      const branches = baseRef && headRef ? ` (${code(headRef)} → ${code(baseRef)})` : '';
      return post([
        `${bold(actor)} ${what} ${prLink}${byAuthor}${where}${branches}`,
        quote(r.optionalString(pr, 'body', 'pull_request.body'), 300),
      ]);
    }
    case 'closed': {
      if (pr.merged === true) {
        const into = baseRef ? ` into ${code(baseRef)}` : '';
        return post([`${bold(actor)} merged pull request ${prLink}${byAuthor}${into}${where}`]);
      }
      return post([`${bold(actor)} closed pull request ${prLink}${byAuthor}${where}`]);
    }
    case 'reopened':
      return post([`${bold(actor)} reopened pull request ${prLink}${byAuthor}${where}`]);
    case 'ready_for_review':
      return post([`${bold(actor)} marked pull request ${prLink}${byAuthor} ready for review${where}`]);
    default:
      return post([`${bold(actor)} converted pull request ${prLink}${byAuthor} to draft${where}`]);
  }
}

function issues(r: PayloadReader, body: Json): WebhookPost | null {
  const p = issuesPost(r, body);
  if (!p) return null;
  const issue = r.object(body, 'issue');
  return topic(p, r.repo(body).name, r.number(issue, 'number', 'issue.number'), r.string(issue, 'title', 'issue.title'));
}

function issuesPost(r: PayloadReader, body: Json): WebhookPost | null {
  const action = r.string(body, 'action');
  if (!['opened', 'closed', 'reopened'].includes(action)) return null;

  const issue = r.object(body, 'issue');
  const repo = r.repo(body);
  const number = r.number(issue, 'number', 'issue.number');
  const title = r.string(issue, 'title', 'issue.title');
  const url = r.string(issue, 'html_url', 'issue.html_url');
  const actor = r.sender(body);
  const issueLink = link(`#${number} ${title}`, url);

  if (action === 'opened') {
    return post([`${bold(actor)} opened issue ${issueLink} in ${repo.link}`, quote(r.optionalString(issue, 'body', 'issue.body'), 300)]);
  }
  if (action === 'closed') {
    const reason = issue.state_reason === 'not_planned' ? ' as not planned' : '';
    return post([`${bold(actor)} closed issue ${issueLink}${reason} in ${repo.link}`]);
  }
  return post([`${bold(actor)} reopened issue ${issueLink} in ${repo.link}`]);
}

function issueComment(r: PayloadReader, body: Json): WebhookPost | null {
  const p = issueCommentPost(r, body);
  if (!p) return null;
  const issue = r.object(body, 'issue');
  return topic(p, r.repo(body).name, r.number(issue, 'number', 'issue.number'), r.string(issue, 'title', 'issue.title'));
}

function issueCommentPost(r: PayloadReader, body: Json): WebhookPost | null {
  const action = r.string(body, 'action');
  if (action !== 'created') return null;

  const issue = r.object(body, 'issue');
  const comment = r.object(body, 'comment');
  const repo = r.repo(body);
  const number = r.number(issue, 'number', 'issue.number');
  const title = r.string(issue, 'title', 'issue.title');
  const url = r.string(comment, 'html_url', 'comment.html_url');
  // Comments on pull requests arrive as issue_comment with issue.pull_request set.
  const kind = issue.pull_request !== undefined && issue.pull_request !== null ? 'pull request' : 'issue';
  return post([
    `${bold(r.sender(body))} commented on ${kind} ${link(`#${number} ${title}`, url)} in ${repo.link}`,
    quote(r.optionalString(comment, 'body', 'comment.body'), 500),
  ]);
}

function release(r: PayloadReader, body: Json): WebhookPost | null {
  // GitHub sends created, published and released for one release; announce it once.
  const action = r.string(body, 'action');
  if (action !== 'published') return null;

  const rel = r.object(body, 'release');
  const repo = r.repo(body);
  const tag = r.string(rel, 'tag_name', 'release.tag_name');
  const name = r.optionalString(rel, 'name', 'release.name')?.trim();
  const url = r.string(rel, 'html_url', 'release.html_url');
  const label = name && name !== tag ? `${name} (${tag})` : tag;
  const what = rel.prerelease === true ? 'pre-release' : 'release';
  return post([
    `${bold(r.sender(body))} published ${what} ${link(label, url)} in ${repo.link}`,
    quote(r.optionalString(rel, 'body', 'release.body'), 500),
  ]);
}

const CONCLUSIONS: Record<string, { icon: string; text: string }> = {
  success: { icon: '✅', text: 'succeeded' },
  failure: { icon: '❌', text: 'failed' },
  startup_failure: { icon: '❌', text: 'failed to start' },
  timed_out: { icon: '⏱️', text: 'timed out' },
  cancelled: { icon: '🚫', text: 'was cancelled' },
  action_required: { icon: '⚠️', text: 'needs action' },
  neutral: { icon: '', text: 'finished' },
  stale: { icon: '', text: 'went stale' },
};

/**
 * A run announced as completed whose `conclusion` is null (GitHub sends null until a run
 * has one): said from its `status`, never as "finished (unknown)" (docs/webhooks.md).
 */
function unconcluded(status: string | undefined): { icon: string; text: string } {
  if (status === 'in_progress') return { icon: '⏳', text: 'is in progress' };
  if (status === 'queued' || status === 'requested' || status === 'waiting' || status === 'pending')
    return { icon: '⏳', text: 'has started' };
  return { icon: '', text: 'finished without a conclusion' };
}

function workflowRun(r: PayloadReader, body: Json): WebhookPost | null {
  const action = r.string(body, 'action');
  // requested / in_progress would double every run's noise.
  if (action !== 'completed') return null;

  const run = r.object(body, 'workflow_run');
  const repo = r.repo(body);
  const conclusion = r.optionalString(run, 'conclusion', 'workflow_run.conclusion');
  if (conclusion === 'skipped') return null;

  const workflow = r.optionalObject(body, 'workflow');
  const name =
    r.optionalString(run, 'name', 'workflow_run.name') ?? (workflow && r.optionalString(workflow, 'name', 'workflow.name')) ?? 'workflow';
  const runNumber = typeof run.run_number === 'number' ? ` #${run.run_number}` : '';
  const url = r.string(run, 'html_url', 'workflow_run.html_url');
  const branch = r.optionalString(run, 'head_branch', 'workflow_run.head_branch');
  const outcome =
    conclusion === undefined
      ? unconcluded(r.optionalString(run, 'status', 'workflow_run.status'))
      : (CONCLUSIONS[conclusion] ?? { icon: '', text: `finished (${escapeMarkdown(conclusion)})` });
  const on = branch === undefined ? '' : ` on ${code(branch)}`;
  const prefix = outcome.icon === '' ? '' : `${outcome.icon} `;
  const text = `${prefix}Workflow ${link(`${name}${runNumber}`, url)} ${outcome.text}${on} in ${repo.link}`;
  return post([text]);
}

/**
 * Convert one GitHub event (the `X-GitHub-Event` header and its JSON body) into a
 * message, or null for events and actions that are deliberately not announced (the
 * route answers 204). A missing header or a malformed payload of a handled event is a 400.
 */
export function parseGithubEvent(event: string | undefined, body: unknown): WebhookPost | null {
  const name = event?.trim().toLowerCase();
  if (!name) throw badRequest('X-GitHub-Event header is required', 'invalid_headers');
  if (!(GITHUB_EVENTS as readonly string[]).includes(name)) return null;
  if (!isPlainObject(body)) throw badRequest('body must be a JSON object');

  const r = new PayloadReader(name);
  switch (name) {
    case 'ping':
      return ping(r, body);
    case 'push':
      return push(r, body);
    case 'pull_request':
      return pullRequest(r, body);
    case 'issues':
      return issues(r, body);
    case 'issue_comment':
      return issueComment(r, body);
    case 'release':
      return release(r, body);
    default:
      return workflowRun(r, body);
  }
}

/** The same for GitHub's `application/x-www-form-urlencoded` delivery (`payload=<json>`). */
export function parseGithubForm(event: string | undefined, formBody: Record<string, string | undefined>): WebhookPost | null {
  if (!event?.trim()) throw badRequest('X-GitHub-Event header is required', 'invalid_headers');
  const payload = formBody.payload;
  if (payload === undefined || payload.trim() === '') {
    throw badRequest('form body must have a "payload" field holding the JSON event');
  }
  return parseGithubEvent(event, parseJsonField(payload, 'payload'));
}
