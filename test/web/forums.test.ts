/**
 * Forum channels in the web client (issue 39, docs/threads.md#forum-channels), in a real
 * browser against a real Parley: a forum opens as its list of posts (title, tags with their
 * emoji, author, replies, last activity), sorted by latest activity or creation date and
 * filtered by tag; "New post" asks for a title, the first message and tags; a post opens in
 * the thread panel (the whole screen on a phone); axe in light and dark. Screenshots land in
 * test-results/web/.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createServer, joinServer, registerUser, type TestUser } from '../factories.js';
import { axeScan, settle } from './axe.js';
import { browserSuite, screenshot, type OpenPage } from './browser.js';

const web = browserSuite();

const named = (name: string) => registerUser(web.url, `${name}_${Math.random().toString(36).slice(2, 7)}`);
const forum = (page: Page) => page.getByTestId('forum-view');
const posts = (page: Page) => forum(page).getByRole('list', { name: 'Posts in help' });
const titlesInOrder = (page: Page) =>
  posts(page)
    .locator('[data-post]')
    .evaluateAll((els) => els.map((el) => (el as any).dataset.title as string));
const panel = (page: Page) => page.getByTestId('thread-panel');

function noPageErrors(o: OpenPage) {
  expect(o.errors, `uncaught errors in the page: ${o.errors.join('\n')}`).toEqual([]);
}

interface Tag {
  id: string;
  name: string;
  emoji: string | null;
}

describe('forums', () => {
  let ana: TestUser;
  let ben: TestUser;
  let serverId: string;
  let forumId: string;
  let tags: Record<string, Tag>;
  let login: { id: string };
  let exporting: { id: string };

  /** A post, as the API makes it (`POST /channels/{forum}/threads` with its first message). */
  async function post(user: TestUser, name: string, content: string, tagNames: string[]) {
    const r = await call(web.url, 'POST', `/channels/${forumId}/threads`, {
      auth: user.auth,
      body: { name, message: { content }, appliedTags: tagNames.map((n) => tags[n]!.id) },
    });
    if (r.status !== 201) throw new Error(`post failed: ${r.status} ${r.text}`);
    return r.body as { id: string };
  }

  beforeAll(async () => {
    ana = await named('ana');
    ben = await named('ben');
    const { server } = await createServer(web.url, ana, 'Workshop');
    serverId = server.id;
    const made = await call(web.url, 'POST', `/servers/${serverId}/channels`, {
      auth: ana.auth,
      body: {
        name: 'help',
        type: 'forum',
        availableTags: [
          { name: 'bug', emoji: '🐛' },
          { name: 'question', emoji: '❓' },
          { name: 'solved', emoji: '✅', moderated: true },
        ],
      },
    });
    expect(made.status).toBe(201);
    forumId = made.body.id;
    tags = Object.fromEntries((made.body.availableTags as Tag[]).map((t) => [t.name, t]));
    await joinServer(web.url, ana, ben, serverId);
    login = await post(ben, 'Login fails on Safari', 'After the update I cannot log in from Safari 17.', ['bug']);
    exporting = await post(ana, 'How do I export my data?', 'Is there a way to download everything?', ['question']);
    // A reply to the older post: it is the latest activity.
    const reply = await call(web.url, 'POST', `/channels/${login.id}/messages`, {
      auth: ana.auth,
      body: { content: 'Which version exactly?' },
    });
    expect(reply.status).toBe(201);
  }, 60_000);

  const open = (user: TestUser, path = `/s/${serverId}/c/${forumId}`, more: { width?: number; height?: number } = {}) =>
    web.open({ token: user.token, path, height: 800, ...more });

  it('lists the posts with their tags, author, replies and activity; sorts and filters them', async () => {
    const o = await open(ana);
    const { page } = o;
    await posts(page).locator(`[data-post="${login.id}"]`).waitFor();
    await posts(page).locator(`[data-post="${exporting.id}"]`).waitFor();
    const card = posts(page).locator(`[data-post="${login.id}"]`);
    // The tag with its emoji (the client's emoji set, as in messages).
    await card.locator('img.emoji[src*="1f41b"]').waitFor();
    await card.getByText('bug', { exact: true }).waitFor();
    await card.getByText(ben.name).waitFor();
    await card.getByText('1 reply').waitFor();
    // The start of its first message.
    await card.getByText('After the update I cannot log in from Safari 17.').waitFor();
    // Latest activity first: the older post has the newest reply.
    expect(await titlesInOrder(page)).toEqual(['Login fails on Safari', 'How do I export my data?']);
    await forum(page).getByLabel('Sort by').selectOption('created');
    expect(await titlesInOrder(page)).toEqual(['How do I export my data?', 'Login fails on Safari']);
    // Filter by a tag (a toggle), then back to all.
    const filters = forum(page).getByRole('group', { name: 'Filter by tag' });
    await filters.getByRole('button', { name: /question/ }).click();
    expect(await filters.getByRole('button', { name: /question/ }).getAttribute('aria-pressed')).toBe('true');
    expect(await titlesInOrder(page)).toEqual(['How do I export my data?']);
    await filters.getByRole('button', { name: 'All' }).click();
    expect(await titlesInOrder(page)).toHaveLength(2);
    await forum(page).getByLabel('Sort by').selectOption('activity');
    await screenshot(page, 'forum-view');
    await page.emulateMedia({ colorScheme: 'dark' });
    await settle(page);
    await screenshot(page, 'forum-view-dark');
    noPageErrors(o);
  });

  it('"New post" takes a title, the first message and tags; the post opens beside the list', async () => {
    const o = await open(ben);
    const { page } = o;
    await posts(page).locator(`[data-post="${login.id}"]`).waitFor();
    await forum(page).getByRole('button', { name: 'New post' }).click();
    const form = forum(page).getByRole('form', { name: 'New post in #help' });
    await form.getByRole('textbox', { name: 'Title' }).fill('Dark mode for the editor');
    await form.getByRole('textbox', { name: 'Message' }).fill('The editor is blinding at night. Could it follow the system theme?');
    // The moderated tag is not offered to a member.
    const tagGroup = form.getByRole('group', { name: 'Tags' });
    expect(await tagGroup.getByRole('button', { name: /solved/ }).count()).toBe(0);
    await tagGroup.getByRole('button', { name: /question/ }).click();
    await form.getByRole('button', { name: 'Post' }).click();
    await page.waitForURL(new RegExp(`/s/${serverId}/c/${forumId}/t/\\d+$`));
    const id = page.url().split('/').pop() ?? '';
    await panel(page).getByText('The editor is blinding at night.', { exact: false }).waitFor();
    await posts(page).locator(`[data-post="${id}"]`).getByText('question').waitFor();
    const made = await call(web.url, 'GET', `/threads/${id}`, { auth: ben.auth });
    expect(made.body).toMatchObject({ parentId: forumId, name: 'Dark mode for the editor', appliedTags: [tags.question!.id] });
    await screenshot(page, 'forum-post-open');

    // Another post opens from the list; only its own messages show.
    await posts(page).locator(`[data-post="${login.id}"]`).click();
    await page.waitForURL(new RegExp(`/t/${login.id}$`));
    await panel(page).getByText('Which version exactly?').waitFor();
    expect(await panel(page).getByText('The editor is blinding at night.', { exact: false }).count()).toBe(0);
    // A reply in the panel counts on the card.
    const box = panel(page).getByRole('textbox', { name: 'Message Login fails on Safari' });
    await box.fill('Safari 17.4 on macOS');
    await box.press('Enter');
    await posts(page).locator(`[data-post="${login.id}"]`).getByText('2 replies').waitFor();
    noPageErrors(o);
  });

  it('on a phone (390 px) the list fits the screen and a post fills it', async () => {
    const o = await open(ana, `/s/${serverId}/c/${forumId}`, { width: 390, height: 844 });
    const { page } = o;
    await posts(page).locator(`[data-post="${login.id}"]`).waitFor();
    const box = await posts(page).locator(`[data-post="${login.id}"]`).boundingBox();
    expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(390);
    await screenshot(page, 'forum-view-phone');
    await posts(page).locator(`[data-post="${login.id}"]`).click();
    await panel(page).getByText('Which version exactly?').waitFor();
    expect(await panel(page).boundingBox()).toMatchObject({ x: 0, width: 390 });
    await screenshot(page, 'forum-post-phone');
    await panel(page).getByRole('button', { name: 'Back to the channel' }).click();
    await panel(page).waitFor({ state: 'detached' });
    noPageErrors(o);
  });

  it('axe finds nothing serious in the forum, its new-post form or an open post, light and dark', async () => {
    const o = await open(ana, `/s/${serverId}/c/${forumId}/t/${login.id}`);
    const { page } = o;
    await panel(page).getByText('Which version exactly?').waitFor();
    const failures: string[] = [];
    const scan = async (name: string) => {
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await settle(page);
        for (const line of await axeScan(page)) failures.push(`[${name}, ${scheme}] ${line}`);
      }
    };
    await scan('forum with a post open');
    await forum(page).getByRole('button', { name: 'New post' }).click();
    await forum(page).getByRole('textbox', { name: 'Title' }).waitFor();
    await scan('new post');
    expect(failures, failures.join('\n')).toEqual([]);
    noPageErrors(o);
  });
});
