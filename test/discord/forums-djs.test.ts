// Issue 39 (docs/threads.md#forum-channels, docs/discord.md#routes): discord.js v14's forum calls,
// unchanged, against Parley: guild.channels.create({ type: GuildForum, availableTags }),
// forum.setAvailableTags, forum.threads.create({ name, message, appliedTags }),
// thread.setAppliedTags, thread.fetchStarterMessage, message.thread / hasThread, and the
// active and archived lists of a forum's posts.
import { ChannelType, type Client, type ForumChannel, MessageFlags, type TextChannel } from 'discord.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, world } from '../factories.js';
import { startServer, type TestServer } from '../harness.js';
import { login as djsLogin, next } from './djs.js';

let srv: TestServer;
const clients: Client[] = [];

beforeAll(async () => {
  srv = await startServer({ env: { GATEWAY_HEARTBEAT_MS: '5000', RATE_LIMITS: 'off' } });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.destroy()));
});
afterAll(() => srv?.close());

/** VIEW_CHANNEL, SEND_MESSAGES, ATTACH_FILES, READ_MESSAGE_HISTORY, MANAGE_CHANNELS and the four thread bits (34, 35, 36, 38). */
const BOT_PERMISSIONS = String(
  (1n << 4n) | (1n << 10n) | (1n << 11n) | (1n << 15n) | (1n << 16n) | (1n << 34n) | (1n << 35n) | (1n << 36n) | (1n << 38n),
);

async function forumWorld() {
  const w = await world(srv.url);
  const r = await call(srv.url, 'PATCH', `/servers/${w.server.id}/bots/${w.bot.id}`, {
    auth: w.owner.auth,
    body: { permissions: BOT_PERMISSIONS },
  });
  expect(r.status).toBe(200);
  return w;
}

describe('discord.js forums against Parley', () => {
  it('creates a forum with tags, changes and removes tags, and sees them in GUILD_CREATE and CHANNEL_UPDATE', async () => {
    const w = await forumWorld();
    const client = await djsLogin(srv, clients, w.bot.token);
    const guild = await client.guilds.fetch(w.server.id);
    const forum = (await guild.channels.create({
      name: 'help',
      type: ChannelType.GuildForum,
      topic: 'ask here',
      availableTags: [{ name: 'bug' }, { name: 'question', emoji: { id: null, name: '❓' } }, { name: 'solved', moderated: true }],
    })) as ForumChannel;
    expect(forum.type).toBe(ChannelType.GuildForum);
    expect(forum.topic).toBe('ask here');
    expect(forum.availableTags.map((t) => t.name)).toEqual(['bug', 'question', 'solved']);
    expect(forum.availableTags[1]!.emoji).toEqual({ id: null, name: '❓' });
    expect(forum.availableTags[2]!.moderated).toBe(true);
    expect(forum.defaultAutoArchiveDuration).toBe(1440);
    expect(forum.defaultReactionEmoji).toBeNull();
    expect(forum.defaultThreadRateLimitPerUser).toBe(0);

    // Keep "bug" (renamed), drop "question", add "feature": the event carries the new list.
    const [bug] = forum.availableTags;
    const updated = next<[ForumChannel, ForumChannel]>(client, 'channelUpdate', (_o, n) => n.id === forum.id);
    const changed = await forum.setAvailableTags([
      { id: bug!.id, name: 'bugs', moderated: false },
      { name: 'feature', moderated: false },
    ]);
    expect(changed.availableTags.map((t) => [t.id === bug!.id, t.name])).toEqual([
      [true, 'bugs'],
      [false, 'feature'],
    ]);
    const [, seen] = await updated;
    expect(seen.availableTags.map((t) => t.name)).toEqual(['bugs', 'feature']);

    // A fresh client's GUILD_CREATE lists the forum with its tags.
    const other = await djsLogin(srv, clients, w.bot.token);
    const cached = other.channels.cache.get(forum.id) as ForumChannel;
    expect(cached.type).toBe(ChannelType.GuildForum);
    expect(cached.availableTags.map((t) => t.name)).toEqual(['bugs', 'feature']);

    // Twenty-one tags are refused.
    await expect(forum.setAvailableTags(Array.from({ length: 21 }, (_, i) => ({ name: `t${i}` })))).rejects.toThrow();
  });

  it('posts in a forum with a first message and tags, changes the tags, and fetches the starter message', async () => {
    const w = await forumWorld();
    const client = await djsLogin(srv, clients, w.bot.token);
    const guild = await client.guilds.fetch(w.server.id);
    const forum = (await guild.channels.create({
      name: 'ideas',
      type: ChannelType.GuildForum,
      availableTags: [{ name: 'ui' }, { name: 'api' }, { name: 'done', moderated: true }],
      defaultAutoArchiveDuration: 4320,
    })) as ForumChannel;
    const [ui, api, done] = forum.availableTags;

    const post = await forum.threads.create({ name: 'dark mode', message: { content: 'please add a dark mode' }, appliedTags: [ui!.id] });
    expect(post.type).toBe(ChannelType.PublicThread);
    expect(post.parentId).toBe(forum.id);
    expect(post.appliedTags).toEqual([ui!.id]);
    // The forum's default duration applies to a post that names none.
    expect(post.autoArchiveDuration).toBe(4320);
    expect(post.ownerId).toBe(w.bot.id);

    // The first message has the post's id, as on Discord.
    const starter = await post.fetchStarterMessage();
    expect(starter?.id).toBe(post.id);
    expect(starter?.content).toBe('please add a dark mode');
    expect(starter?.channelId).toBe(post.id);

    // With a file: multipart, payload_json with the message and files[0].
    const withFile = await forum.threads.create({
      name: 'logs',
      message: { content: 'see the log', files: [{ attachment: Buffer.from('line 1\n'), name: 'log.txt' }] },
    });
    const fileStarter = await withFile.fetchStarterMessage();
    expect(fileStarter?.attachments.map((a) => a.name)).toEqual(['log.txt']);
    expect(await (await fetch(fileStarter!.attachments.first()!.url)).text()).toBe('line 1\n');

    const retagged = await post.setAppliedTags([ui!.id, api!.id]);
    expect(retagged.appliedTags).toEqual([ui!.id, api!.id]);
    // A moderated tag takes MANAGE_THREADS, which the bot holds (bit 34).
    expect((await post.setAppliedTags([done!.id])).appliedTags).toEqual([done!.id]);

    // The forum is in the active list, then the archived one.
    const active = await forum.threads.fetchActive();
    expect([...active.threads.keys()]).toContain(post.id);
    await post.setArchived(true);
    const archived = await forum.threads.fetchArchived({ type: 'public' });
    expect([...archived.threads.keys()]).toContain(post.id);
    expect(archived.threads.get(post.id)?.appliedTags).toEqual([done!.id]);

    // A message to the forum itself is refused, as on Discord (50008).
    const refused = await call(srv.url, 'POST', `/api/channels/${forum.id}/messages`, {
      auth: `Bot ${w.bot.token}`,
      body: { content: 'hello forum' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe(50008);
  });

  it('shows the thread started from a message on the message: message.thread and hasThread', async () => {
    const w = await forumWorld();
    const client = await djsLogin(srv, clients, w.bot.token);
    const channel = (await client.channels.fetch(w.channel.id)) as TextChannel;
    const plain = await channel.send('no thread here');
    const message = await channel.send('start one here');
    const thread = await message.startThread({ name: 'from the message' });
    await thread.send('inside');

    // A fresh client fetches the page: the starter carries the thread, the other message none.
    const other = await djsLogin(srv, clients, w.bot.token);
    const fresh = (await other.channels.fetch(w.channel.id)) as TextChannel;
    const page = await fresh.messages.fetch({ limit: 10 });
    const starter = page.get(message.id)!;
    expect(starter.hasThread).toBe(true);
    expect(starter.flags.has(MessageFlags.HasThread)).toBe(true);
    expect(starter.thread?.id).toBe(thread.id);
    expect(starter.thread?.name).toBe('from the message');
    expect(page.get(plain.id)!.hasThread).toBe(false);
    const one = await fresh.messages.fetch({ message: message.id, force: true });
    expect(one.hasThread).toBe(true);

    // The forum's active threads are listed by the guild too.
    const listed = await other.guilds.cache.get(w.server.id)!.channels.fetchActiveThreads();
    expect([...listed.threads.keys()]).toContain(thread.id);
  });
});
