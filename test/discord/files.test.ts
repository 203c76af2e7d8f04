// discord.js bots answering interactions with files: reply, editReply, followUp and a
// button's update send multipart `payload_json` + `files[n]`, stored through the same path
// as channel messages; oversize files and late callbacks are refused and leave nothing.
import {
  ActionRowBuilder,
  AttachmentBuilder,
  ButtonBuilder,
  ButtonStyle,
  type ChatInputCommandInteraction,
  type Client,
  Events,
  type Interaction,
} from 'discord.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, upload, world } from '../factories.js';
import { ClientPool } from '../gateway/client.js';
import { startServer, type TestServer } from '../harness.js';
import { login } from './djs.js';

/** Small, so an oversize file is cheap to send. */
const MAX_UPLOAD = 64 * 1024;

let srv: TestServer;
const clients: Client[] = [];
const pool = new ClientPool();

beforeAll(async () => {
  srv = await startServer({ env: { GATEWAY_HEARTBEAT_MS: '5000', RATE_LIMITS: 'off', MAX_UPLOAD_BYTES: String(MAX_UPLOAD) } });
});
afterEach(async () => {
  await Promise.all([...clients.splice(0).map((c) => c.destroy()), pool.closeAll()]);
});
afterAll(() => srv?.close());

type W = Awaited<ReturnType<typeof world>>;
interface Att {
  url: string;
  filename: string;
  size: number;
}

/** Runs `handler` on the next chat input command `name`; resolves with what it returns (rejects with what it throws). */
function onCommand<T>(client: Client, name: string, handler: (i: ChatInputCommandInteraction) => Promise<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    const on = (i: Interaction) => {
      if (!i.isChatInputCommand() || i.commandName !== name) return;
      client.off(Events.InteractionCreate, on);
      handler(i).then(resolve, reject);
    };
    client.on(Events.InteractionCreate, on);
  });
}

const invoke = (w: W, name: string) =>
  call(srv.url, 'POST', `/channels/${w.channel.id}/interactions`, { auth: w.owner.auth, body: { type: 'command', botId: w.bot.id, name } });

/** A world whose bot has the command `name`, logged in with discord.js. */
async function setup(name: string) {
  const w = await world(srv.url);
  const client = await login(srv, clients, w.bot.token);
  await client.application!.commands.create({ name, description: 'Answers with files' }, w.server.id);
  return { w, client };
}

/** Some distinct bytes: not text, so a re-encoding would show. */
const bytes = (n: number, seed: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff));

async function download(url: string): Promise<{ status: number; body: Buffer }> {
  const res = await fetch(url);
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
}

async function history(w: W): Promise<Array<{ id: string; content: string; attachments: Att[] }>> {
  return (await call(srv.url, 'GET', `/channels/${w.channel.id}/messages`, { auth: w.owner.auth })).body;
}

/** The uploads the bot owns (what a Discord answer's files are stored as). */
const uploadsOf = async (userId: string) =>
  srv.app.ctx.store.db.selectFrom('uploads').select(['id', 'filename']).where('uploaderId', '=', userId).execute();

describe('interaction answers with files (discord.js)', () => {
  it('reply({content, files}) posts the message with its attachment, whose bytes download identical', async () => {
    const { w, client } = await setup('report');
    const data = bytes(5000, 7);
    const done = onCommand(client, 'report', async (i) => {
      await i.reply({ content: 'here it is', files: [new AttachmentBuilder(data, { name: 'report.bin' })] });
      return i.fetchReply();
    });
    expect((await invoke(w, 'report')).status).toBe(202);
    const reply = await done;
    // discord.js sees the attachment on the answer it fetched.
    expect([...reply.attachments.values()].map((a) => [a.name, a.size])).toEqual([['report.bin', 5000]]);
    const m = (await history(w)).find((x) => x.id === reply.id)!;
    expect(m.content).toBe('here it is');
    expect(m.attachments.map((a) => [a.filename, a.size])).toEqual([['report.bin', 5000]]);
    const got = await download(m.attachments[0]!.url);
    expect(got.status).toBe(200);
    expect(got.body.equals(data)).toBe(true);
  });

  it('editReply({files}) replaces the old file with the new one, and the old upload goes', async () => {
    const { w, client } = await setup('swap');
    const first = bytes(300, 1);
    const second = bytes(400, 2);
    const done = onCommand(client, 'swap', async (i) => {
      await i.reply({ content: 'v1', files: [new AttachmentBuilder(first, { name: 'v1.bin' })] });
      const before = await i.fetchReply();
      const after = await i.editReply({ content: 'v2', files: [new AttachmentBuilder(second, { name: 'v2.bin' })] });
      return { before: [...before.attachments.values()].map((a) => a.url), after };
    });
    await invoke(w, 'swap');
    const { before, after } = await done;
    expect([...after.attachments.values()].map((a) => a.name)).toEqual(['v2.bin']);
    const m = (await history(w)).find((x) => x.id === after.id)!;
    expect(m.content).toBe('v2');
    expect(m.attachments.map((a) => a.filename)).toEqual(['v2.bin']);
    expect((await download(m.attachments[0]!.url)).body.equals(second)).toBe(true);
    // The replaced file was only this message's: it is gone, record and bytes.
    expect((await download(before[0]!)).status).toBe(404);
    expect((await uploadsOf(w.bot.id)).map((u) => u.filename)).toEqual(['v2.bin']);
  });

  it('editReply keeps an existing file listed in attachments beside a new one', async () => {
    const { w, client } = await setup('keep');
    const done = onCommand(client, 'keep', async (i) => {
      await i.reply({ content: 'one', files: [new AttachmentBuilder(bytes(100, 3), { name: 'a.bin' })] });
      const before = await i.fetchReply();
      return i.editReply({
        content: 'two',
        attachments: [...before.attachments.values()],
        files: [new AttachmentBuilder(bytes(120, 4), { name: 'b.bin' })],
      });
    });
    await invoke(w, 'keep');
    const after = await done;
    const m = (await history(w)).find((x) => x.id === after.id)!;
    expect(m.attachments.map((a) => a.filename)).toEqual(['a.bin', 'b.bin']);
    expect((await download(m.attachments[0]!.url)).body.equals(bytes(100, 3))).toBe(true);
  });

  it('followUp({files}) with two files posts both, in order', async () => {
    const { w, client } = await setup('pair');
    const a = bytes(1000, 5);
    const b = bytes(2000, 6);
    const done = onCommand(client, 'pair', async (i) => {
      await i.reply('first');
      return i.followUp({
        content: 'two files',
        files: [new AttachmentBuilder(a, { name: 'a.bin' }), new AttachmentBuilder(b, { name: 'b.bin' })],
      });
    });
    await invoke(w, 'pair');
    const follow = await done;
    expect([...follow.attachments.values()].map((x) => x.name)).toEqual(['a.bin', 'b.bin']);
    const m = (await history(w)).find((x) => x.id === follow.id)!;
    expect(m.attachments.map((x) => [x.filename, x.size])).toEqual([
      ['a.bin', 1000],
      ['b.bin', 2000],
    ]);
    expect((await download(m.attachments[0]!.url)).body.equals(a)).toBe(true);
    expect((await download(m.attachments[1]!.url)).body.equals(b)).toBe(true);
  });

  it("edits a follow-up's files through the interaction webhook; an attachment id the message lacks is a 50035", async () => {
    const { w, client } = await setup('redo');
    const done = onCommand(client, 'redo', async (i) => {
      await i.reply('first');
      const follow = await i.followUp({ content: 'follow', files: [new AttachmentBuilder(bytes(50, 1), { name: 'old.bin' })] });
      const edited = await i.webhook.editMessage(follow.id, { files: [new AttachmentBuilder(bytes(60, 2), { name: 'new.bin' })] });
      const refused = await i.webhook.editMessage(follow.id, { attachments: [{ id: '12345' }] as never }).then(
        () => null,
        (err: { status?: number; code?: number }) => [err.status, err.code],
      );
      return { follow, edited, refused };
    });
    await invoke(w, 'redo');
    const { follow, edited, refused } = await done;
    expect(edited.id).toBe(follow.id);
    expect(refused).toEqual([400, 50035]);
    const m = (await history(w)).find((x) => x.id === follow.id)!;
    expect(m.attachments.map((a) => a.filename)).toEqual(['new.bin']);
    expect((await download(m.attachments[0]!.url)).body.equals(bytes(60, 2))).toBe(true);
  });

  it("a button's update({files}) puts the file on the clicked message", async () => {
    const { w, client } = await setup('menu');
    const data = bytes(800, 9);
    const updated = new Promise<void>((resolve, reject) => {
      client.on(Events.InteractionCreate, async (i) => {
        try {
          if (i.isChatInputCommand() && i.commandName === 'menu') {
            const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
              new ButtonBuilder().setCustomId('get').setLabel('Get the file').setStyle(ButtonStyle.Primary),
            );
            await i.reply({ content: 'press', components: [row] });
          } else if (i.isButton() && i.customId === 'get') {
            await i.update({ content: 'here', components: [], files: [new AttachmentBuilder(data, { name: 'got.bin' })] });
            resolve();
          }
        } catch (err) {
          reject(err);
        }
      });
    });
    const person = await pool.identify(srv.gatewayUrl, w.owner.auth);
    await invoke(w, 'menu');
    const answer = (await person.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'press')).d;
    const clicked = await call(srv.url, 'POST', `/channels/${w.channel.id}/interactions`, {
      auth: w.owner.auth,
      body: { type: 'component', messageId: answer.id, customId: 'get' },
    });
    expect(clicked.status).toBe(202);
    await updated;
    const event = (await person.waitForEvent('MESSAGE_UPDATE', (d) => d.id === answer.id && d.content === 'here')).d;
    expect(event.attachments.map((a: Att) => a.filename)).toEqual(['got.bin']);
    const m = (await history(w)).find((x) => x.id === answer.id)!;
    expect((await download(m.attachments[0]!.url)).body.equals(data)).toBe(true);
  });

  it("refuses an oversize file with Discord's error shape and stores nothing", async () => {
    const { w, client } = await setup('big');
    const done = onCommand(client, 'big', async (i) =>
      i.reply({ content: 'too big', files: [new AttachmentBuilder(bytes(MAX_UPLOAD + 1, 1), { name: 'big.bin' })] }).then(
        () => null,
        (err: { status?: number; code?: number; rawError?: { message?: string } }) => ({
          status: err.status,
          code: err.code,
          message: err.rawError?.message,
        }),
      ),
    );
    await invoke(w, 'big');
    const refused = await done;
    expect(refused).toMatchObject({ status: 413, code: 40005 });
    expect(refused?.message).toMatch(/^Files may be at most .* KB$/);
    expect(await uploadsOf(w.bot.id)).toEqual([]);
    expect((await history(w)).some((m) => m.content === 'too big')).toBe(false);
  });

  it('refuses an eleventh file on a follow-up (413, 40005) and keeps none of the ten before it', async () => {
    const { w, client } = await setup('many');
    const done = onCommand(client, 'many', async (i) => {
      await i.reply('first');
      const files = Array.from({ length: 11 }, (_, n) => new AttachmentBuilder(bytes(10, n), { name: `f${n}.bin` }));
      return i.followUp({ content: 'eleven', files }).then(
        () => null,
        (err: { status?: number; code?: number }) => [err.status, err.code],
      );
    });
    await invoke(w, 'many');
    expect(await done).toEqual([413, 40005]);
    expect(await uploadsOf(w.bot.id)).toEqual([]);
    expect((await history(w)).some((m) => m.content === 'eleven')).toBe(false);
  });

  it('refuses an edit keeping one file and adding ten (400, 50035), and stores none of the ten', async () => {
    const { w, client } = await setup('crowd');
    const done = onCommand(client, 'crowd', async (i) => {
      await i.reply({ content: 'one', files: [new AttachmentBuilder(bytes(10, 0), { name: 'kept.bin' })] });
      const before = await i.fetchReply();
      const files = Array.from({ length: 10 }, (_, n) => new AttachmentBuilder(bytes(10, n + 1), { name: `f${n}.bin` }));
      const refused = await i.editReply({ attachments: [...before.attachments.values()], files }).then(
        () => null,
        (err: { status?: number; code?: number }) => [err.status, err.code],
      );
      return { refused, id: before.id };
    });
    await invoke(w, 'crowd');
    const { refused, id } = await done;
    expect(refused).toEqual([400, 50035]);
    expect((await uploadsOf(w.bot.id)).map((u) => u.filename)).toEqual(['kept.bin']);
    expect((await history(w)).find((m) => m.id === id)!.attachments.map((a) => a.filename)).toEqual(['kept.bin']);
  });

  it('refuses a callback with files after the window and leaves no upload behind', async () => {
    const { w, client } = await setup('late');
    const person = await pool.identify(srv.gatewayUrl, w.owner.auth);
    const done = onCommand(client, 'late', async (i) => {
      // The window has passed once the invoker hears the interaction failed.
      await person.waitForEvent('INTERACTION_FAILED', (d) => d.id === i.id, 10_000);
      return i.reply({ content: 'late', files: [new AttachmentBuilder(bytes(500, 2), { name: 'late.bin' })] }).then(
        () => null,
        (err: { status?: number; code?: number }) => ({ status: err.status, code: err.code }),
      );
    });
    await invoke(w, 'late');
    const refused = await done;
    expect(refused?.status).toBe(400);
    expect(typeof refused?.code).toBe('number');
    expect(await uploadsOf(w.bot.id)).toEqual([]);
  });

  it('an ephemeral reply carries its file to the invoker alone', async () => {
    const { w, client } = await setup('secret');
    const data = bytes(256, 8);
    const person = await pool.identify(srv.gatewayUrl, w.owner.auth);
    const done = onCommand(client, 'secret', async (i) => {
      await i.reply({ content: 'for you', files: [new AttachmentBuilder(data, { name: 's.bin' })], flags: 64 });
      return i;
    });
    await invoke(w, 'secret');
    const i = await done;
    const m = (await person.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'for you')).d;
    expect(m.ephemeral).toBe(true);
    expect(m.attachments.map((a: Att) => a.filename)).toEqual(['s.bin']);
    expect((await download(m.attachments[0].url)).body.equals(data)).toBe(true);
    expect((await history(w)).some((x) => x.content === 'for you')).toBe(false);
    // Deleting the ephemeral answer takes its file with it.
    await i.deleteReply();
    expect((await download(m.attachments[0].url)).status).toBe(404);
    expect(await uploadsOf(w.bot.id)).toEqual([]);
  });
});

describe('native interaction edits with attachments', () => {
  it('PATCH /interactions/{token}/messages/original replaces the files by upload URL, keeping one by its URL', async () => {
    const { w, client } = await setup('native');
    const token = onCommand(client, 'native', async (i) => {
      await i.reply('plain');
      return i.token;
    });
    await invoke(w, 'native');
    const t = await token;
    const a = (await upload(srv.url, w.bot.auth, 'aaa', 'a.txt', 'text/plain')).body;
    const b = (await upload(srv.url, w.bot.auth, 'bbb', 'b.txt', 'text/plain')).body;
    const one = await call(srv.url, 'PATCH', `/interactions/${t}/messages/original`, {
      body: { attachments: [{ url: a.url, filename: 'a.txt' }] },
    });
    expect([one.status, one.body.attachments.map((x: Att) => x.filename)]).toEqual([200, ['a.txt']]);
    const two = await call(srv.url, 'PATCH', `/interactions/${t}/messages/original`, {
      body: { attachments: [{ url: b.url, filename: 'b.txt' }, one.body.attachments[0]] },
    });
    expect([two.status, two.body.attachments.map((x: Att) => x.filename)]).toEqual([200, ['b.txt', 'a.txt']]);
    const none = await call(srv.url, 'PATCH', `/interactions/${t}/messages/original`, { body: { attachments: [] } });
    expect([none.status, none.body.attachments]).toEqual([200, []]);
    // Both files were only this message's: released with the edit that dropped them.
    expect((await download(a.url)).status).toBe(404);
    expect((await download(b.url)).status).toBe(404);
  });
});
