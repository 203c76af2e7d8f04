/**
 * Threads in the web client (issue 39, docs/threads.md), in a real browser against a real
 * Parley: starting a thread from a message's menu (name prefilled) and from the channel's
 * threads list, the panel beside the channel (the starter message on top, only the thread's
 * messages, its own composer), another person seeing posts live, the thread under its
 * parent in the sidebar with its unread dot and mention badge, Follow / Unfollow, archiving
 * and the archived list, Escape and the focus, the phone's full-screen view, and axe.
 * Screenshots land in test-results/web/.
 */
import type { Page, Request } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createChannel, createServer, joinServer, postMessage, registerUser, type TestUser } from '../factories.js';
import { axeScan, settle } from './axe.js';
import { browserSuite, screenshot, type OpenPage } from './browser.js';
import { clickNotification, recordNotifications, waitForNotifications } from './notifications.js';

const web = browserSuite();

const named = (name: string) => registerUser(web.url, `${name}_${Math.random().toString(36).slice(2, 7)}`);
const sidebar = (page: Page) => page.getByRole('complementary', { name: /channels$/ });
const panel = (page: Page) => page.getByTestId('thread-panel');
const panelComposer = (page: Page, name: string) => panel(page).getByRole('textbox', { name: `Message ${name}` });
const messageEl = (page: Page, id: string) => page.locator(`[data-message-id="${id}"]`);
const threadRow = (page: Page, id: string) => sidebar(page).locator(`a[data-thread="${id}"]`);
const focusedLabel = (page: Page) =>
  page.evaluate(() => {
    const el = (globalThis as any).document.activeElement;
    return el ? (el.getAttribute('aria-label') ?? el.id ?? el.textContent) : null;
  });

function noPageErrors(o: OpenPage) {
  expect(o.errors, `uncaught errors in the page: ${o.errors.join('\n')}`).toEqual([]);
}

describe('threads', () => {
  let ana: TestUser;
  let ben: TestUser;
  let serverId: string;
  let generalId: string;
  let randomId: string;
  let question: { id: string };

  beforeAll(async () => {
    ana = await named('ana');
    ben = await named('ben');
    const { server, general } = await createServer(web.url, ana, 'Harbour');
    serverId = server.id;
    generalId = general.id;
    randomId = (await createChannel(web.url, ana, serverId, 'random')).id;
    await joinServer(web.url, ana, ben, serverId);
    await postMessage(web.url, ana.auth, generalId, 'The ferry timetable changed again');
    question = await postMessage(web.url, ben.auth, generalId, 'Where should we meet on **Saturday**?');
  }, 60_000);

  const open = (
    user: TestUser,
    path = `/s/${serverId}/c/${generalId}`,
    more: { width?: number; height?: number; colorScheme?: 'light' | 'dark' } = {},
  ) => web.open({ token: user.token, path, height: 800, ...more });

  let threadId: string;

  it('starts a thread from a message: the name is prefilled, the panel opens beside the channel with the starter on top', async () => {
    const o = await open(ana);
    const { page } = o;
    await messageEl(page, question.id).getByText('Saturday').click({ button: 'right' });
    const menu = page.getByRole('menu', { name: 'Message options' });
    await menu.getByRole('menuitem', { name: 'Create thread' }).click();
    const name = panel(page).getByRole('textbox', { name: 'Thread name' });
    await name.waitFor();
    // The message's text, without its markdown, as the name; the focus is in it.
    expect(await name.inputValue()).toBe('Where should we meet on Saturday?');
    expect(await focusedLabel(page)).toBe(await name.getAttribute('id'));
    await name.fill('Saturday plans');
    // Only the thread's own messages are asked for, never the parent's history again.
    const asked: string[] = [];
    page.on('request', (r: Request) => {
      if (r.method() === 'GET' && /\/channels\/\d+\/messages\?/.test(r.url())) asked.push(new URL(r.url()).pathname);
    });
    await panel(page).getByRole('button', { name: 'Create thread' }).click();
    // The thread takes the message's id, and its address says so.
    await page.waitForURL(new RegExp(`/s/${serverId}/c/${generalId}/t/${question.id}$`));
    threadId = question.id;
    await expect.poll(() => page.getByRole('complementary', { name: 'Saturday plans' }).count()).toBe(1);
    await panel(page).getByTestId('thread-starter').getByText('Saturday').waitFor();
    // The composer of the thread has the focus.
    const box = panelComposer(page, 'Saturday plans');
    await expect.poll(() => box.evaluate((el) => el === (globalThis as any).document.activeElement)).toBe(true);
    await box.fill('The park at ten?');
    await box.press('Enter');
    await panel(page).locator('[data-message-id]', { hasText: 'The park at ten?' }).waitFor();
    // The channel's other messages are not in the thread.
    expect(await panel(page).getByText('The ferry timetable changed again').count()).toBe(0);
    expect(asked.every((p) => p === `/channels/${threadId}/messages`)).toBe(true);
    // The starter message in the channel carries the thread's summary, which opens it.
    await messageEl(page, question.id).locator(`[data-thread-summary="${threadId}"]`).waitFor();
    // On the server: a public thread under #general, with ana's first post in it.
    const th = await call(web.url, 'GET', `/threads/${threadId}`, { auth: ana.auth });
    expect(th.status).toBe(200);
    expect(th.body).toMatchObject({ parentId: generalId, name: 'Saturday plans', type: 'public_thread' });
    await screenshot(page, 'thread-panel');
    await page.emulateMedia({ colorScheme: 'dark' });
    await settle(page);
    await screenshot(page, 'thread-panel-dark');
    noPageErrors(o);
  });

  it('another person sees posts live, follows it, and finds its unread dot and mention badge under #general', async () => {
    const o = await open(ben, `/s/${serverId}/c/${generalId}/t/${threadId}`);
    const { page } = o;
    await panel(page).getByText('The park at ten?').waitFor();
    // Ana posts: it arrives in Ben's panel without a reload.
    await postMessage(web.url, ana.auth, threadId, 'Or the harbour café');
    await panel(page).getByText('Or the harbour café').waitFor();

    // Follow: the button says so, and the server knows.
    const follow = panel(page).getByRole('button', { name: 'Follow' });
    await follow.click();
    await panel(page).getByRole('button', { name: 'Following' }).waitFor();
    expect(await panel(page).getByRole('button', { name: 'Following' }).getAttribute('aria-pressed')).toBe('true');
    expect((await call(web.url, 'GET', `/threads/${threadId}/members/@me`, { auth: ben.auth })).status).toBe(200);
    // A followed thread lists under its parent.
    await threadRow(page, threadId).waitFor();

    // Ben goes to #random; Ana writes in the thread, then pings him.
    await sidebar(page)
      .getByRole('link', { name: /random/ })
      .click();
    await page.waitForURL(new RegExp(`/c/${randomId}$`));
    await panel(page).waitFor({ state: 'detached' });
    await postMessage(web.url, ana.auth, threadId, 'Ten it is');
    await expect.poll(() => threadRow(page, threadId).getAttribute('data-unread')).toBe('');
    await postMessage(web.url, ana.auth, threadId, `<@${ben.id}> bring the map`);
    await threadRow(page, threadId).locator('[data-mention-badge]').filter({ hasText: /^1\b/ }).waitFor();
    await screenshot(page, 'thread-unread-sidebar');

    // Opening it from the sidebar reads it.
    await threadRow(page, threadId).click();
    await panel(page).getByText('bring the map').waitFor();
    await expect.poll(() => threadRow(page, threadId).getAttribute('data-unread')).toBeNull();
    await expect.poll(() => threadRow(page, threadId).locator('[data-mention-badge]').count()).toBe(0);

    // Unfollow.
    await panel(page).getByRole('button', { name: 'Following' }).click();
    await panel(page).getByRole('button', { name: 'Follow' }).waitFor();
    await expect.poll(async () => (await call(web.url, 'GET', `/threads/${threadId}/members/@me`, { auth: ben.auth })).status).toBe(404);
    noPageErrors(o);
  });

  it('Escape closes the panel and gives the focus back; the channel header lists threads and starts a new one', async () => {
    const o = await open(ana);
    const { page } = o;
    // Ben has #general open meanwhile.
    const b = await open(ben);
    await sidebar(b.page)
      .getByRole('link', { name: /general/ })
      .first()
      .waitFor();
    const button = page.getByRole('button', { name: 'Threads', exact: true });
    await button.click();
    const list = page.getByRole('dialog', { name: 'Threads' });
    await list.locator(`[data-thread-row="${threadId}"]`).waitFor();
    await list.getByRole('button', { name: 'New thread' }).click();
    const name = panel(page).getByRole('textbox', { name: 'Thread name' });
    await name.waitFor();
    await name.fill('Lost and found');
    await panel(page)
      .getByRole('textbox', { name: /First message/ })
      .fill('A blue umbrella, anyone?');
    await panel(page).getByRole('button', { name: 'Create thread' }).click();
    await page.waitForURL(new RegExp(`/c/${generalId}/t/\\d+$`));
    const newId = page.url().split('/').pop() ?? '';
    await panel(page).getByText('A blue umbrella, anyone?').waitFor();
    // THREAD_CREATE: the new thread, just active, shows under #general on Ben's screen at once.
    await threadRow(b.page, newId).waitFor();
    expect(await threadRow(b.page, newId).getAttribute('data-unread')).toBeNull();
    // Escape: the panel closes, the address is the channel's again, the focus goes back to the channel.
    await panelComposer(page, 'Lost and found').focus();
    await page.keyboard.press('Escape');
    await panel(page).waitFor({ state: 'detached' });
    await page.waitForURL(new RegExp(`/c/${generalId}$`));
    await expect.poll(() => focusedLabel(page)).toBe('Message #general');
    // The list is a way back in.
    await button.click();
    await list.locator(`[data-thread-row="${newId}"]`).click();
    await page.waitForURL(new RegExp(`/t/${newId}$`));
    await panel(page).getByText('A blue umbrella, anyone?').waitFor();
    noPageErrors(o);
    noPageErrors(b);
  });

  it('archives a thread from its menu; the archived list pages it, and opens it', async () => {
    const o = await open(ana, `/s/${serverId}/c/${generalId}/t/${threadId}`);
    const { page } = o;
    await panel(page).getByText('Ten it is').waitFor();
    await panel(page).getByRole('button', { name: 'Thread options' }).click();
    await page.getByRole('menu', { name: 'Thread options' }).getByRole('menuitem', { name: 'Archive thread' }).click();
    await panel(page).getByText('Archived', { exact: true }).waitFor();
    await expect
      .poll(async () => (await call(web.url, 'GET', `/threads/${threadId}`, { auth: ana.auth })).body.metadata.archived)
      .toBe(true);
    await panel(page).getByRole('button', { name: 'Close thread' }).click();
    await page.getByRole('button', { name: 'Threads', exact: true }).click();
    const list = page.getByRole('dialog', { name: 'Threads' });
    await list.getByRole('tab', { name: 'Archived' }).click();
    await list.locator(`[data-thread-row="${threadId}"]`).waitFor();
    await screenshot(page, 'thread-archived-list');
    await list.locator(`[data-thread-row="${threadId}"]`).click();
    await page.waitForURL(new RegExp(`/t/${threadId}$`));
    await panel(page).getByText('Ten it is').waitFor();
    // Posting in an archived thread opens it again (docs/threads.md#activity).
    await panelComposer(page, 'Saturday plans').fill('Back from the archive');
    await panelComposer(page, 'Saturday plans').press('Enter');
    await expect
      .poll(async () => (await call(web.url, 'GET', `/threads/${threadId}`, { auth: ana.auth })).body.metadata.archived)
      .toBe(false);
    noPageErrors(o);
  });

  it('a followed thread notifies of every message, named after the thread; a click opens it', async () => {
    const made = await call(web.url, 'POST', `/channels/${generalId}/threads`, { auth: ana.auth, body: { name: 'Ferry times' } });
    expect(made.status).toBe(201);
    const ferry = made.body.id as string;
    expect((await call(web.url, 'PUT', `/threads/${ferry}/members/@me`, { auth: ben.auth })).status).toBe(204);
    const o = await web.open({
      token: ben.token,
      path: `/s/${serverId}/c/${randomId}`,
      height: 800,
      prepare: (page) => recordNotifications(page, web.url, { grant: true }),
    });
    const { page } = o;
    await threadRow(page, ferry).waitFor();
    // Not a mention: a followed thread notifies of everything, as on Discord.
    const msg = await postMessage(web.url, ana.auth, ferry, 'The 9:10 is cancelled');
    const [seen] = await waitForNotifications(page, 1);
    expect(seen).toMatchObject({ title: `${ana.name} (Ferry times, #general, Harbour)`, body: 'The 9:10 is cancelled', tag: msg.id });
    await clickNotification(page, 0);
    await page.waitForURL(new RegExp(`/c/${generalId}/t/${ferry}$`));
    await panel(page).getByText('The 9:10 is cancelled').waitFor();
    noPageErrors(o);
  });

  it('on a phone (390 px) the thread fills the screen, with a way back to the channel', async () => {
    const o = await open(ben, `/s/${serverId}/c/${generalId}/t/${threadId}`, { width: 390, height: 844 });
    const { page } = o;
    await panel(page).getByText('Back from the archive').waitFor();
    const box = await panel(page).boundingBox();
    expect(box).toMatchObject({ x: 0, width: 390 });
    await screenshot(page, 'thread-panel-phone');
    await panel(page).getByRole('button', { name: 'Back to the channel' }).click();
    await panel(page).waitFor({ state: 'detached' });
    await page.waitForURL(new RegExp(`/c/${generalId}$`));
    noPageErrors(o);
  });

  it('axe finds nothing serious in the panel, the threads list or the new-thread form, light and dark', async () => {
    const o = await open(ana, `/s/${serverId}/c/${generalId}/t/${threadId}`);
    const { page } = o;
    await panel(page).getByText('Back from the archive').waitFor();
    const failures: string[] = [];
    const scan = async (name: string) => {
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await settle(page);
        for (const line of await axeScan(page)) failures.push(`[${name}, ${scheme}] ${line}`);
      }
    };
    await scan('thread panel');
    await page.getByRole('button', { name: 'Threads', exact: true }).click();
    await page.getByRole('dialog', { name: 'Threads' }).locator(`[data-thread-row="${threadId}"]`).waitFor();
    await scan('threads list');
    await page.getByRole('dialog', { name: 'Threads' }).getByRole('button', { name: 'New thread' }).click();
    await panel(page).getByRole('textbox', { name: 'Thread name' }).waitFor();
    await scan('new thread');
    expect(failures, failures.join('\n')).toEqual([]);
    noPageErrors(o);
  });
});
