/**
 * Screenshots of every page of the web client, in light, dark and at phone width, for
 * docs/screenshots/pages/ (and the README's gallery).
 *
 *   npm run screenshots [-- --out DIR] [-- --only chat,settings-roles]
 *
 * Starts Parley on a fresh SQLite database (as the browser tests do), fills one server as a
 * small team would (people, a bot, a webhook, replies, reactions, an image, an embed, code,
 * emoji, pins, an invite, a ban, roles), then opens each page in Debian's chromium
 * (CHROMIUM_PATH, default /usr/bin/chromium) and saves `<page>-light.png`, `<page>-dark.png`
 * and `<page>-phone.png`. Look at them before committing: they are what a person choosing a
 * chat server sees first.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Page } from 'playwright-core';
import { P } from '@parley/protocol';
import {
  type Res,
  type TestUser,
  addBot,
  call,
  createBot,
  createChannel,
  createServer,
  createWebhook,
  joinServer,
  postMessage,
  registerUser,
  upload,
} from '../test/factories.js';
import { startServer } from '../test/harness.js';
import { ROOT, ensureWebBuilt, launchBrowser, makePng, openPage } from '../test/web/browser.js';

const { values } = parseArgs({
  options: { out: { type: 'string', default: path.join(ROOT, 'docs', 'screenshots', 'pages') }, only: { type: 'string' } },
});
const out = path.resolve(values.out!);
const only = values.only ? new Set(values.only.split(',')) : null;

ensureWebBuilt();
const srv = await startServer({ env: { RATE_LIMITS: 'off' } });
const browser = await launchBrowser();

/** A setup call's answer, or the run stops: a missing role or ban would quietly make a poorer picture. */
function must<T extends Res>(r: T, status: number): T {
  if (r.status !== status) throw new Error(`setup: expected ${status}, got ${r.status} ${r.text}`);
  return r;
}

try {
  const base = srv.url;
  const ada = await registerUser(base, 'ada');
  const grace = await registerUser(base, 'grace');
  const linus = await registerUser(base, 'linus');
  const mallory = await registerUser(base, 'mallory');
  const { server, general } = await createServer(base, ada, 'Analytical Engines');
  const releases = await createChannel(base, ada, server.id, 'releases');
  await createChannel(base, ada, server.id, 'random');
  // Operations' channels under a category, as a community's server groups them.
  const ops = await call(base, 'POST', `/servers/${server.id}/channels`, {
    auth: ada.auth,
    body: { name: 'Operations', type: 'category' },
  });
  for (const name of ['incidents', 'deploys']) {
    const c = await call(base, 'POST', `/servers/${server.id}/channels`, { auth: ada.auth, body: { name, parentId: ops.body.id } });
    if (c.status !== 201) throw new Error(`channel ${name}: ${c.status} ${c.text}`);
  }
  for (const u of [grace, linus, mallory]) await joinServer(base, ada, u, server.id);
  const bot = await createBot(base, ada, 'CI');
  await addBot(base, ada, server.id, bot.id);
  const mods = await call(base, 'POST', `/servers/${server.id}/roles`, {
    auth: ada.auth,
    body: { name: 'Moderators', color: 0x3498db, hoist: true, permissions: String(P.KICK_MEMBERS | P.MANAGE_MESSAGES | P.BAN_MEMBERS) },
  });
  must(mods, 201);
  must(await call(base, 'PUT', `/servers/${server.id}/members/${grace.id}/roles/${mods.body.id}`, { auth: ada.auth }), 204);
  must(await call(base, 'PUT', `/servers/${server.id}/bans/${mallory.id}`, { auth: ada.auth, body: { reason: 'Spam links' } }), 204);
  const invite = must(await call(base, 'POST', `/servers/${server.id}/invites`, { auth: ada.auth }), 201);
  const hook = await createWebhook(base, ada, server.id, general.id, 'Pager');

  const hello = await postMessage(base, ada.auth, general.id, 'Morning all! Release **1.4** goes out today 🚀');
  await postMessage(
    base,
    grace.auth,
    general.id,
    'Nice. Before we ship:\n- migrations are applied\n- the changelog mentions the new *webhook settings*',
  );
  await call(base, 'POST', `/channels/${general.id}/messages`, {
    auth: linus.auth,
    body: {
      content: `<@${ada.id}> the retry loop still looks off to me:\n\`\`\`ts\nfor (let i = 0; i < 3; i++) {\n  if (await send(msg)) break;\n  await sleep(2 ** i * 100);\n}\n\`\`\``,
      messageReference: { messageId: hello.id },
    },
  });
  const png = await upload(base, bot.auth, makePng(480, 180), 'coverage.png', 'image/png');
  await call(base, 'POST', `/channels/${general.id}/messages`, {
    auth: bot.auth,
    body: {
      content: 'Build **#412** passed on `main`\n> 212 tests, 0 failures, coverage 91%',
      attachments: [{ url: png.body.url, filename: 'coverage.png' }],
    },
  });
  const incident = await call(base, 'POST', `/webhooks/${hook.id}/${hook.token}?wait=true`, {
    body: {
      embeds: [
        {
          title: 'Incident resolved',
          url: 'https://status.example.com/i/99',
          description: 'Error rate back under **0.1%** after the rollback.',
          color: 0x2ecc71,
          fields: [
            { name: 'Service', value: 'api', inline: true },
            { name: 'Duration', value: '14 min', inline: true },
            { name: 'On call', value: 'grace', inline: true },
          ],
          footer: { text: 'Pager' },
        },
      ],
    },
  });
  const pinned = await postMessage(base, grace.auth, general.id, 'Thanks all 🙌 notes are in #releases');
  await call(base, 'PUT', `/channels/${general.id}/pins/${pinned.id}`, { auth: ada.auth });
  const react = (u: { auth: string }, id: string, emoji: string) =>
    call(base, 'PUT', `/channels/${general.id}/messages/${id}/reactions/${encodeURIComponent(emoji)}`, { auth: u.auth });
  await react(grace, hello.id, '🎉');
  await react(bot, hello.id, '🎉');
  await react(linus, hello.id, '👍');
  must(await react(ada, must(incident, 200).body.id, '👀'), 200);
  await postMessage(base, ada.auth, releases.id, 'v1.4.0 is out: webhooks settings, faster search, Discord bots.');
  // Unread state and a mention for ada elsewhere.
  await postMessage(base, grace.auth, releases.id, `<@${ada.id}> can you tag the release?`);
  const dm = await call(base, 'POST', '/users/@me/channels', { auth: ada.auth, body: { recipientIds: [grace.id] } });
  await postMessage(base, grace.auth, dm.body.id, 'Got a minute to look at the release notes?');
  await postMessage(base, ada.auth, dm.body.id, 'Sure, send them over 👍');

  // A thread started from the release message, and a forum with tagged posts (docs/threads.md).
  const thread = must(
    await call(base, 'POST', `/channels/${general.id}/messages/${hello.id}/threads`, {
      auth: grace.auth,
      body: { name: 'Release 1.4 checklist' },
    }),
    201,
  );
  await postMessage(base, grace.auth, thread.body.id, 'Changelog is merged ✅');
  await postMessage(base, linus.auth, thread.body.id, 'Docker image builds, pushing the tag now');
  await postMessage(base, ada.auth, thread.body.id, `<@${linus.id}> thanks! I'll announce it once it's on the registry.`);
  const help = must(
    await call(base, 'POST', `/servers/${server.id}/channels`, {
      auth: ada.auth,
      body: {
        name: 'help',
        type: 'forum',
        availableTags: [
          { name: 'bug', emoji: '🐛' },
          { name: 'question', emoji: '❓' },
          { name: 'idea', emoji: '💡' },
          { name: 'solved', emoji: '✅', moderated: true },
        ],
      },
    }),
    201,
  );
  const tagId = (name: string) => (help.body.availableTags as { id: string; name: string }[]).find((t) => t.name === name)!.id;
  const forumPost = async (u: TestUser, name: string, content: string, tags: string[]) =>
    must(
      await call(base, 'POST', `/channels/${help.body.id}/threads`, {
        auth: u.auth,
        body: { name, message: { content }, appliedTags: tags.map(tagId) },
      }),
      201,
    ).body as { id: string };
  await forumPost(linus, 'Webhook retries give up too early', 'A 502 from our proxy stops the retries after the first try.', ['bug']);
  const exportPost = await forumPost(grace, 'How do I export a channel?', 'Is there a way to download a channel as JSON?', ['question']);
  await forumPost(ada, 'Scheduled messages', 'Would a /remind command be worth it, or a bot?', ['idea']);
  await postMessage(base, ada.auth, exportPost.id, 'GET /channels/{id}/messages pages through all of it; a button is on the list.');

  type Shot = { name: string; path: string; user?: TestUser; ready: (page: Page) => Promise<unknown> };
  const text = (t: string) => (page: Page) => page.getByText(t).first().waitFor();
  const shots: Shot[] = [
    {
      name: 'login',
      path: '/login',
      ready: (p) =>
        p
          .getByRole('button', { name: /log in/i })
          .first()
          .waitFor(),
    },
    {
      name: 'register',
      path: '/register',
      ready: (p) =>
        p
          .getByRole('button', { name: /create/i })
          .first()
          .waitFor(),
    },
    { name: 'invite', path: `/invite/${invite.body.code}`, ready: text('Analytical Engines') },
    { name: 'chat', path: `/s/${server.id}/c/${general.id}`, user: ada, ready: text('Incident resolved') },
    {
      name: 'search',
      path: `/s/${server.id}/c/${general.id}`,
      user: ada,
      ready: async (p) => {
        await text('Incident resolved')(p);
        const box = p.getByRole('searchbox').first();
        await box.fill('release');
        await box.press('Enter');
        await p
          .getByText(/results?/i)
          .first()
          .waitFor();
      },
    },
    {
      name: 'thread',
      path: `/s/${server.id}/c/${general.id}/t/${thread.body.id}`,
      user: ada,
      ready: text("I'll announce it once"),
    },
    {
      name: 'forum',
      path: `/s/${server.id}/c/${help.body.id}`,
      user: ada,
      ready: (p) => p.getByTestId('forum-view').getByText('Would a /remind command').waitFor(),
    },
    { name: 'forum-post', path: `/s/${server.id}/c/${help.body.id}/t/${exportPost.id}`, user: ada, ready: text('pages through all of it') },
    { name: 'direct-message', path: `/dms/${dm.body.id}`, user: ada, ready: text('Sure, send them over') },
    ...['overview', 'roles', 'channels', 'invites', 'bans', 'audit-log', 'webhooks', 'bots'].map((tab) => ({
      name: `settings-${tab}`,
      path: `/s/${server.id}/settings/${tab}`,
      user: ada,
      ready: (p: Page) => p.getByRole('main').first().waitFor(),
    })),
    { name: 'account', path: '/account', user: ada, ready: (p) => p.getByRole('main').first().waitFor() },
    { name: 'my-bots', path: '/my-bots', user: ada, ready: text('CI') },
  ];

  fs.mkdirSync(out, { recursive: true });
  const variants = [
    { suffix: 'light', colorScheme: 'light' as const, width: 1280, height: 800 },
    { suffix: 'dark', colorScheme: 'dark' as const, width: 1280, height: 800 },
    { suffix: 'phone', colorScheme: 'light' as const, width: 390, height: 844 },
  ];
  for (const shot of shots) {
    if (only && !only.has(shot.name)) continue;
    for (const v of variants) {
      const o = await openPage(browser, base, { token: shot.user?.token, path: shot.path, ...v });
      try {
        await shot.ready(o.page);
        // Fonts and lazily loaded images settle before the picture is taken.
        await o.page.evaluate(() => (globalThis as unknown as { document: { fonts: { ready: Promise<unknown> } } }).document.fonts.ready);
        await o.page.waitForLoadState('networkidle');
        await o.page.mouse.move(v.width - 5, v.height - 5);
        const file = path.join(out, `${shot.name}-${v.suffix}.png`);
        await o.page.screenshot({ path: file });
        console.log(path.relative(ROOT, file));
        if (o.errors.length) console.warn(`  page errors: ${o.errors.join('; ')}`);
      } catch (err) {
        console.error(`${shot.name}-${v.suffix}: ${(err as Error).message.split('\n')[0]}`);
        process.exitCode = 1;
      } finally {
        await o.context.close();
      }
    }
  }
} finally {
  await browser.close();
  await srv.close();
}
