// discord.js bots with modals and context-menu commands against Parley: ContextMenuCommandBuilder
// in a mixed bulk overwrite, user and message commands with their targets resolved,
// `showModal` from a slash command and from a button, `isModalSubmit()` with the values,
// and Discord's 50035 for a modal that breaks its limits (docs/discord.md).
import {
  ActionRowBuilder,
  ApplicationCommandType,
  ButtonBuilder,
  ButtonStyle,
  type Client,
  ContextMenuCommandBuilder,
  Events,
  type Interaction,
  MessageFlags,
  ModalBuilder,
  SlashCommandBuilder,
  TextInputBuilder,
  TextInputStyle,
} from 'discord.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type TestUser, call, joinServer, registerUser, world } from '../factories.js';
import { ClientPool } from '../gateway/client.js';
import { startServer, type TestServer } from '../harness.js';
import { login } from './djs.js';

let srv: TestServer;
const clients: Client[] = [];
const pool = new ClientPool();

beforeAll(async () => {
  srv = await startServer({ env: { GATEWAY_HEARTBEAT_MS: '5000', RATE_LIMITS: 'off' } });
});
afterEach(async () => {
  await Promise.all([...clients.splice(0).map((c) => c.destroy()), pool.closeAll()]);
});
afterAll(() => srv?.close());

/** Resolves with what `handler` returns for the first interaction it takes (returns non-undefined for). */
function onInteraction<T>(client: Client, handler: (i: Interaction) => Promise<T | undefined> | undefined): Promise<T> {
  return new Promise((resolve, reject) => {
    const on = (i: Interaction) => {
      const p = handler(i);
      if (p === undefined) return;
      client.off(Events.InteractionCreate, on);
      p.then((v) => resolve(v as T), reject);
    };
    client.on(Events.InteractionCreate, on);
  });
}

const feedbackModal = (customId = 'feedback') =>
  new ModalBuilder()
    .setCustomId(customId)
    .setTitle('Your feedback')
    .addComponents(
      new ActionRowBuilder<TextInputBuilder>().addComponents(
        new TextInputBuilder().setCustomId('subject').setLabel('Subject').setStyle(TextInputStyle.Short).setMinLength(3).setMaxLength(40),
      ),
      new ActionRowBuilder<TextInputBuilder>().addComponents(
        new TextInputBuilder()
          .setCustomId('details')
          .setLabel('Details')
          .setStyle(TextInputStyle.Paragraph)
          .setRequired(false)
          .setPlaceholder('Tell us more')
          .setValue('It works'),
      ),
    );

/** A world with a discord.js bot that registered a slash, a user and a message command in one bulk overwrite, and a member on the native gateway. */
async function setup() {
  const w = await world(srv.url);
  const member = await registerUser(srv.url);
  await joinServer(srv.url, w.owner, member, w.server.id);
  const client = await login(srv, clients, w.bot.token);
  const saved = await client.application!.commands.set(
    [
      new SlashCommandBuilder().setName('feedback').setDescription('Send feedback').toJSON(),
      new ContextMenuCommandBuilder().setName('feedback').setType(ApplicationCommandType.User).toJSON(),
      new ContextMenuCommandBuilder().setName('Quote It').setType(ApplicationCommandType.Message).toJSON(),
    ],
    w.server.id,
  );
  const memberGw = await pool.identify(srv.gatewayUrl, member.auth);
  return { ...w, member, client, saved, memberGw };
}

const invoke = (who: TestUser, channelId: string, body: object) =>
  call(srv.url, 'POST', `/channels/${channelId}/interactions`, { auth: who.auth, body });

describe('context-menu commands', () => {
  it('registers user and message commands beside a slash command of the same name, and runs them on their targets', async () => {
    const w = await setup();
    expect(w.saved.map((c) => `${c.type}:${c.name}:${c.description}`).sort()).toEqual([
      `${ApplicationCommandType.ChatInput}:feedback:Send feedback`,
      `${ApplicationCommandType.User}:feedback:`,
      `${ApplicationCommandType.Message}:Quote It:`,
    ]);
    const fetched = await w.client.application!.commands.fetch({ guildId: w.server.id });
    expect(fetched.filter((c) => c.type === ApplicationCommandType.User).size).toBe(1);

    const user = onInteraction(w.client, (i) => {
      if (!i.isUserContextMenuCommand()) return undefined;
      return i.reply(`high five to ${i.targetUser.username}`).then(() => ({
        name: i.commandName,
        target: i.targetId,
        member: i.targetMember !== null,
        type: i.commandType,
      }));
    });
    const r = await invoke(w.member, w.channel.id, {
      type: 'command',
      botId: w.bot.id,
      name: 'feedback',
      commandType: 'user',
      targetId: w.owner.id,
    });
    expect(r.status, r.text).toBe(202);
    expect(await user).toEqual({ name: 'feedback', target: w.owner.id, member: true, type: ApplicationCommandType.User });
    const five = await w.memberGw.waitForEvent('MESSAGE_CREATE', (d) => d.content === `high five to ${w.owner.name}`);
    // The answer names a user command (no slash in clients); on Discord's wire it is type 23.
    expect(five.d.interaction).toMatchObject({ type: 'command', name: 'feedback', commandType: 'user' });
    const asDiscord = await call(srv.url, 'GET', `/api/v10/channels/${w.channel.id}/messages/${five.d.id}`, { auth: w.bot.auth });
    expect([asDiscord.body.type, asDiscord.body.interaction?.name]).toEqual([23, 'feedback']);

    const posted = await call(srv.url, 'POST', `/channels/${w.channel.id}/messages`, { auth: w.owner.auth, body: { content: 'quotable' } });
    const message = onInteraction(w.client, (i) => {
      if (!i.isMessageContextMenuCommand()) return undefined;
      return i.reply({ content: `> ${i.targetMessage.content}`, flags: MessageFlags.Ephemeral }).then(() => ({
        target: i.targetId,
        author: i.targetMessage.author.id,
      }));
    });
    const m = await invoke(w.member, w.channel.id, {
      type: 'command',
      botId: w.bot.id,
      name: 'Quote It',
      commandType: 'message',
      targetId: posted.body.id,
    });
    expect(m.status, m.text).toBe(202);
    expect(await message).toEqual({ target: posted.body.id, author: w.owner.id });
    await w.memberGw.waitForEvent('MESSAGE_CREATE', (d) => d.content === '> quotable' && d.ephemeral === true);
  });

  it('refuses a message command on a message the invoker cannot see', async () => {
    const w = await setup();
    const posted = await call(srv.url, 'POST', `/channels/${w.channel.id}/messages`, { auth: w.owner.auth, body: { content: 'secret' } });
    await call(srv.url, 'PUT', `/channels/${w.channel.id}/permissions/${w.member.id}`, {
      auth: w.owner.auth,
      body: { type: 'member', allow: '0', deny: (1n << 16n).toString() },
    });
    const seen: string[] = [];
    w.client.on(Events.InteractionCreate, (i) => {
      seen.push(i.isMessageContextMenuCommand() ? 'message' : 'user');
    });
    const r = await invoke(w.member, w.channel.id, {
      type: 'command',
      botId: w.bot.id,
      name: 'Quote It',
      commandType: 'message',
      targetId: posted.body.id,
    });
    expect([r.status, r.body.code]).toEqual([403, 'missing_permission']);
    // Nothing reached the bot: a marker interaction after it is the first it sees.
    const marker = onInteraction(w.client, (i) => (i.isUserContextMenuCommand() ? i.reply('marker').then(() => true) : undefined));
    await invoke(w.member, w.channel.id, { type: 'command', botId: w.bot.id, name: 'feedback', commandType: 'user', targetId: w.owner.id });
    await marker;
    expect(seen).toEqual(['user']);
  });
});

describe('modals', () => {
  it('shows a modal from a slash command and reads its submit with isModalSubmit()', async () => {
    const w = await setup();
    const shown = onInteraction(w.client, (i) => (i.isChatInputCommand() ? i.showModal(feedbackModal()).then(() => i.id) : undefined));
    const r = await invoke(w.member, w.channel.id, { type: 'command', botId: w.bot.id, name: 'feedback' });
    expect(r.status).toBe(202);
    const interactionId = await shown;
    const modal = (await w.memberGw.waitForEvent('INTERACTION_MODAL', (d) => d.id === interactionId)).d.modal;
    expect(modal.title).toBe('Your feedback');
    expect(modal.components.map((row: { components: Array<{ customId: string; style: string }> }) => row.components[0])).toMatchObject([
      { customId: 'subject', style: 'short', label: 'Subject', minLength: 3, maxLength: 40, required: true },
      { customId: 'details', style: 'paragraph', required: false, placeholder: 'Tell us more', value: 'It works' },
    ]);

    // Another member cannot submit it; the invoker's too-short subject is refused.
    const other = await registerUser(srv.url);
    await joinServer(srv.url, w.owner, other, w.server.id);
    const submit = (who: TestUser, subject: string) =>
      invoke(who, w.channel.id, {
        type: 'modalSubmit',
        interactionId,
        customId: 'feedback',
        fields: [
          { customId: 'subject', value: subject },
          { customId: 'details', value: 'Lovely' },
        ],
      });
    expect((await submit(other, 'Hello')).body.code).toBe('not_interaction_user');
    expect((await submit(w.member, 'Hi')).body.code).toBe('invalid_fields');

    const submitted = onInteraction(w.client, (i) => {
      if (!i.isModalSubmit()) return undefined;
      return i.reply(`Thanks for "${i.fields.getTextInputValue('subject')}"`).then(() => ({
        customId: i.customId,
        subject: i.fields.getTextInputValue('subject'),
        details: i.fields.getTextInputValue('details'),
        fromMessage: i.isFromMessage(),
        user: i.user.id,
      }));
    });
    expect((await submit(w.member, 'Hello')).status).toBe(202);
    expect(await submitted).toEqual({ customId: 'feedback', subject: 'Hello', details: 'Lovely', fromMessage: false, user: w.member.id });
    await w.memberGw.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'Thanks for "Hello"');
  });

  it('shows a modal from a button; its submit updates the message', async () => {
    const w = await setup();
    const replied = onInteraction(w.client, (i) =>
      i.isChatInputCommand()
        ? i
            .reply({
              content: 'Rate us',
              components: [
                new ActionRowBuilder<ButtonBuilder>().addComponents(
                  new ButtonBuilder().setCustomId('rate').setLabel('Rate').setStyle(ButtonStyle.Primary),
                ),
              ],
            })
            .then(() => true)
        : undefined,
    );
    await invoke(w.member, w.channel.id, { type: 'command', botId: w.bot.id, name: 'feedback' });
    await replied;
    const message = (await w.memberGw.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'Rate us')).d;
    const shown = onInteraction(w.client, (i) => (i.isButton() ? i.showModal(feedbackModal('rating')).then(() => i.id) : undefined));
    await invoke(w.member, w.channel.id, { type: 'component', messageId: message.id, customId: 'rate' });
    const interactionId = await shown;
    await w.memberGw.waitForEvent('INTERACTION_MODAL', (d) => d.id === interactionId);
    const updated = onInteraction(w.client, (i) => {
      if (!i.isModalSubmit() || !i.isFromMessage()) return undefined;
      return i.update({ content: `Rated: ${i.fields.getTextInputValue('subject')}`, components: [] }).then(() => i.message.id);
    });
    const r = await invoke(w.member, w.channel.id, {
      type: 'modalSubmit',
      interactionId,
      customId: 'rating',
      fields: [{ customId: 'subject', value: 'Five stars' }],
    });
    expect(r.status, r.text).toBe(202);
    expect(await updated).toBe(message.id);
    await w.memberGw.waitForEvent('MESSAGE_UPDATE', (d) => d.id === message.id && d.content === 'Rated: Five stars');
  });

  it("refuses a modal beyond Discord's limits with 50035, from discord.js and on the raw route", async () => {
    const w = await setup();
    const refused = onInteraction(w.client, (i) => {
      if (!i.isChatInputCommand()) return undefined;
      // discord.js's builders check limits themselves: the raw JSON goes past them.
      const tooLong = { ...feedbackModal().toJSON(), title: 'x'.repeat(46) };
      return i.showModal(tooLong).then(
        () => null,
        (err: { code?: number; status?: number }) => [err.status, err.code],
      );
    });
    await invoke(w.member, w.channel.id, { type: 'command', botId: w.bot.id, name: 'feedback' });
    expect(await refused).toEqual([400, 50035]);

    const raw = onInteraction(w.client, (i) => (i.isChatInputCommand() ? Promise.resolve({ id: i.id, token: i.token }) : undefined));
    await invoke(w.member, w.channel.id, { type: 'command', botId: w.bot.id, name: 'feedback' });
    const i = await raw;
    const post = (data: object) => call(srv.url, 'POST', `/api/v10/interactions/${i.id}/${i.token}/callback`, { body: { type: 9, data } });
    const row = (input: object) => ({ type: 1, components: [{ type: 4, custom_id: 'a', style: 1, label: 'A', ...input }] });
    const base = { custom_id: 'm', title: 'T' };
    for (const data of [
      { ...base, components: [] },
      { ...base, components: Array(6).fill(row({})) },
      { ...base, custom_id: 'x'.repeat(101), components: [row({})] },
      { ...base, components: [row({ label: 'x'.repeat(46) })] },
      { ...base, components: [row({ max_length: 4001 })] },
      { ...base, components: [row({ style: 3 })] },
      { ...base, components: [row({}), row({})] },
    ]) {
      const r = await post(data);
      expect([r.status, r.body.code], JSON.stringify(data).slice(0, 120)).toEqual([400, 50035]);
    }
    // A valid one still goes through on the same interaction (nothing was settled).
    expect((await post({ ...base, components: [row({ min_length: 0, max_length: 4000 })] })).status).toBe(204);
  });
});
