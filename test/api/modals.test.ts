import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type TestBot, type TestUser, call, createChannel, joinServer, registerUser, world } from '../factories.js';
import { ClientPool, type TestGatewayClient } from '../gateway/client.js';
import { type TestServer, startServer } from '../harness.js';

/**
 * User and message commands (Discord's context-menu commands) and modals, natively: their
 * registration rules, what the bot receives for each, who may invoke them on what, and a
 * modal's one submit by its invoker with its text inputs checked (docs/commands.md).
 */

let srv: TestServer;
const pool = new ClientPool();
const READ_MESSAGE_HISTORY = (1n << 16n).toString();

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
});
afterEach(async () => {
  srv.app.ctx.clock = Date.now;
  await pool.closeAll();
});
afterAll(() => srv?.close());

const FEEDBACK = {
  customId: 'feedback',
  title: 'Your feedback',
  components: [
    {
      type: 'row',
      components: [{ type: 'textInput', customId: 'subject', style: 'short', label: 'Subject', minLength: 3, maxLength: 20 }],
    },
    {
      type: 'row',
      components: [
        { type: 'textInput', customId: 'body', style: 'paragraph', label: 'Details', required: false, placeholder: 'Tell us more' },
      ],
    },
  ],
};

const COMMANDS = [
  { name: 'feedback', description: 'Send feedback' },
  { type: 'user', name: 'feedback', description: undefined },
  { type: 'user', name: 'High Five' },
  { type: 'message', name: 'Quote It' },
].map((c) => Object.fromEntries(Object.entries(c).filter(([, v]) => v !== undefined)));

/** A server with a bot that registered chat, user and message commands, its gateway session, and a member with theirs. */
async function setup() {
  const w = await world(srv.url);
  const member = await registerUser(srv.url);
  await joinServer(srv.url, w.owner, member, w.server.id);
  const put = await call(srv.url, 'PUT', `/bots/${w.bot.id}/commands`, { auth: w.bot.auth, body: COMMANDS });
  expect(put.status, put.text).toBe(200);
  const [botGw, ownerGw, memberGw] = await Promise.all([
    pool.identify(srv.gatewayUrl, w.bot.auth),
    pool.identify(srv.gatewayUrl, w.owner.auth),
    pool.identify(srv.gatewayUrl, member.auth),
  ]);
  return { ...w, member, botGw, ownerGw, memberGw };
}

const invoke = (who: TestUser, channelId: string, body: object) =>
  call(srv.url, 'POST', `/channels/${channelId}/interactions`, { auth: who.auth, body });

const callback = (i: { id: string; token: string }, body: object) =>
  call(srv.url, 'POST', `/interactions/${i.id}/${i.token}/callback`, { body });

/** Runs a command as `who`; resolves with the interaction its bot received. */
async function run(w: { bot: TestBot; botGw: TestGatewayClient }, who: TestUser, channelId: string, body: object) {
  const r = await invoke(who, channelId, { type: 'command', botId: w.bot.id, ...body });
  expect(r.status, r.text).toBe(202);
  return (await w.botGw.waitForEvent('INTERACTION_CREATE', (d) => d.id === r.body.id)).d;
}

describe('user and message commands', () => {
  it('registers them beside chat commands, names unique per type, with their own rules and limits', async () => {
    const w = await setup();
    const list = await call(srv.url, 'GET', `/bots/${w.bot.id}/commands`, { auth: w.bot.auth });
    const seen = list.body.map((c: { type: string; name: string; description: string }) => [c.type, c.name, c.description].join('|'));
    expect(seen.sort()).toEqual(['chat|feedback|Send feedback', 'message|Quote It|', 'user|High Five|', 'user|feedback|']);
    const put = (body: object[]) => call(srv.url, 'PUT', `/bots/${w.bot.id}/commands`, { auth: w.bot.auth, body });
    const refused = async (body: object[], pattern: RegExp) => {
      const r = await put(body);
      expect([r.status, r.body.code], r.text).toEqual([400, 'invalid_commands']);
      expect(r.body.error).toMatch(pattern);
    };
    await refused([{ type: 'user', name: 'Wave', description: 'Waves' }], /has no description/);
    await refused([{ type: 'message', name: 'Pin', options: [{ type: 'string', name: 'x', description: 'x' }] }], /has no options/);
    await refused([{ name: 'High Five', description: 'Caps and spaces are for user and message commands' }], /lower case/);
    await refused([{ type: 'user', name: ' padded' }], /space/);
    await refused(
      [
        { type: 'user', name: 'Twice' },
        { type: 'user', name: 'Twice' },
      ],
      /used twice/,
    );
    await refused([{ name: 'nodesc' }], /needs a description/);
    const six = Array.from({ length: 6 }, (_, i) => ({ type: 'message', name: `Action ${i}` }));
    await refused(six, /at most 5 message commands/);
    // Five of each type and chat commands besides fit.
    const five = (type: string) => Array.from({ length: 5 }, (_, i) => ({ type, name: `Action ${i}` }));
    const full = await put([...five('user'), ...five('message'), { name: 'action', description: 'Chat' }]);
    expect(full.status, full.text).toBe(200);
    expect(full.body).toHaveLength(11);
    const sixth = await call(srv.url, 'POST', `/bots/${w.bot.id}/commands`, { auth: w.bot.auth, body: { type: 'user', name: 'One more' } });
    expect([sixth.status, sixth.body.code]).toEqual([400, 'invalid_commands']);
    // A command's type cannot change by an edit.
    const userCmd = full.body.find((c: { type: string }) => c.type === 'user');
    const edit = await call(srv.url, 'PATCH', `/bots/${w.bot.id}/commands/${userCmd.id}`, {
      auth: w.bot.auth,
      body: { type: 'chat', description: 'now chat' },
    });
    expect([edit.status, edit.body.code]).toEqual([400, 'invalid_commands']);
  });

  it('hands a user command its target as a user and member, and a message command its message', async () => {
    const w = await setup();
    const channels = await call(srv.url, 'GET', `/channels/${w.channel.id}/commands`, { auth: w.member.auth });
    expect(channels.body.map((c: { type: string; name: string }) => `${c.type}:${c.name}`).sort()).toEqual([
      'chat:feedback',
      'message:Quote It',
      'user:High Five',
      'user:feedback',
    ]);
    const user = await run(w, w.member, w.channel.id, { name: 'High Five', commandType: 'user', targetId: w.owner.id });
    expect(user).toMatchObject({ type: 'command', name: 'High Five', commandType: 'user', targetId: w.owner.id });
    expect(user.resolved.users[w.owner.id].id).toBe(w.owner.id);
    expect(user.resolved.members[w.owner.id].roles).toEqual([]);
    // The chat command of the same name is another command.
    const chat = await run(w, w.member, w.channel.id, { name: 'feedback' });
    const userFeedback = await run(w, w.member, w.channel.id, { name: 'feedback', commandType: 'user', targetId: w.member.id });
    expect(chat.commandId).not.toBe(userFeedback.commandId);
    expect(chat.commandType).toBeUndefined();

    const posted = await call(srv.url, 'POST', `/channels/${w.channel.id}/messages`, { auth: w.owner.auth, body: { content: 'quote me' } });
    const msg = await run(w, w.member, w.channel.id, { name: 'Quote It', commandType: 'message', targetId: posted.body.id });
    expect(msg).toMatchObject({ commandType: 'message', targetId: posted.body.id });
    expect(msg.resolved.messages[posted.body.id]).toMatchObject({ id: posted.body.id, content: 'quote me' });

    // Wrong targets: none, a stranger, a message of another channel, options.
    const bad = async (body: object, status: number, code: string) => {
      const r = await invoke(w.member, w.channel.id, { type: 'command', botId: w.bot.id, ...body });
      expect([r.status, r.body.code], r.text).toEqual([status, code]);
    };
    const stranger = await registerUser(srv.url);
    await bad({ name: 'High Five', commandType: 'user' }, 400, 'missing_option');
    await bad({ name: 'High Five', commandType: 'user', targetId: stranger.id }, 400, 'invalid_option');
    const other = await createChannel(srv.url, w.owner, w.server.id);
    const elsewhere = await call(srv.url, 'POST', `/channels/${other.id}/messages`, { auth: w.owner.auth, body: { content: 'elsewhere' } });
    await bad({ name: 'Quote It', commandType: 'message', targetId: elsewhere.body.id }, 404, 'unknown_message');
    await bad({ name: 'Quote It', commandType: 'message', targetId: posted.body.id, options: { x: 1 } }, 400, 'unknown_option');
    await bad({ name: 'feedback', targetId: posted.body.id }, 400, 'unknown_option');
    await bad({ name: 'Quote It', targetId: posted.body.id }, 404, 'unknown_command');
  });

  it('refuses a message command to someone who cannot read the channel history', async () => {
    const w = await setup();
    const posted = await call(srv.url, 'POST', `/channels/${w.channel.id}/messages`, { auth: w.owner.auth, body: { content: 'old news' } });
    const deny = await call(srv.url, 'PUT', `/channels/${w.channel.id}/permissions/${w.member.id}`, {
      auth: w.owner.auth,
      body: { type: 'member', allow: '0', deny: READ_MESSAGE_HISTORY },
    });
    expect(deny.status, deny.text).toBeLessThan(300);
    const r = await invoke(w.member, w.channel.id, {
      type: 'command',
      botId: w.bot.id,
      name: 'Quote It',
      commandType: 'message',
      targetId: posted.body.id,
    });
    expect([r.status, r.body.code], r.text).toEqual([403, 'missing_permission']);
    // A user command does not need to read anything.
    const ok = await invoke(w.member, w.channel.id, {
      type: 'command',
      botId: w.bot.id,
      name: 'High Five',
      commandType: 'user',
      targetId: w.owner.id,
    });
    expect(ok.status).toBe(202);
  });
});

describe('modals', () => {
  it('shows the modal to the invoker alone, who submits it once; the bot answers the submit', async () => {
    const w = await setup();
    const i = await run(w, w.member, w.channel.id, { name: 'feedback' });
    expect((await callback(i, { type: 'modal', data: { modal: FEEDBACK } })).status).toBe(204);
    const shown = await w.memberGw.waitForEvent('INTERACTION_MODAL', (d) => d.id === i.id);
    expect(shown.d.modal).toMatchObject({ customId: 'feedback', title: 'Your feedback' });
    expect(shown.d.modal.components[0].components[0]).toMatchObject({ customId: 'subject', required: true, minLength: 3 });
    await w.memberGw.waitForEvent('INTERACTION_SUCCESS', (d) => d.id === i.id);
    // A second callback is refused, as for any interaction.
    expect((await callback(i, { type: 'message', data: { content: 'late' } })).status).toBe(409);

    const submit = (who: TestUser, fields: object[], customId = 'feedback') =>
      invoke(who, w.channel.id, { type: 'modalSubmit', interactionId: i.id, customId, fields });
    // Someone else cannot submit it.
    const theirs = await submit(w.owner, [{ customId: 'subject', value: 'hijack' }]);
    expect([theirs.status, theirs.body.code]).toEqual([403, 'not_interaction_user']);
    // The text inputs' rules hold on the server too.
    const cases: Array<[object[], RegExp]> = [
      [[], /Subject.*is required/],
      [[{ customId: 'subject', value: 'ab' }], /at least 3/],
      [[{ customId: 'subject', value: 'x'.repeat(21) }], /at most 20/],
      [
        [
          { customId: 'subject', value: 'fine' },
          { customId: 'nope', value: '' },
        ],
        /no text input "nope"/,
      ],
    ];
    for (const [fields, pattern] of cases) {
      const r = await submit(w.member, fields);
      expect([r.status, r.body.code], r.text).toEqual([400, 'invalid_fields']);
      expect(r.body.error).toMatch(pattern);
    }
    expect((await submit(w.member, [{ customId: 'subject', value: 'fine' }], 'other')).body.code).toBe('invalid_fields');

    const ok = await submit(w.member, [{ customId: 'subject', value: 'Great app' }]);
    expect(ok.status, ok.text).toBe(202);
    const got = (await w.botGw.waitForEvent('INTERACTION_CREATE', (d) => d.id === ok.body.id)).d;
    expect(got).toMatchObject({
      type: 'modalSubmit',
      customId: 'feedback',
      fields: [
        { customId: 'subject', value: 'Great app' },
        { customId: 'body', value: '' },
      ],
      user: { id: w.member.id },
    });
    expect(got.message).toBeUndefined();
    // Once only.
    const again = await submit(w.member, [{ customId: 'subject', value: 'Again' }]);
    expect([again.status, again.body.code]).toEqual([404, 'unknown_interaction']);
    // A modal does not answer a modal submit; a message does.
    const nested = await callback(got, { type: 'modal', data: { modal: FEEDBACK } });
    expect([nested.status, nested.body.code]).toEqual([400, 'invalid_callback']);
    // A modal shown for a command has no clicked message to update.
    const update = await callback(got, { type: 'update', data: { content: 'x' } });
    expect([update.status, update.body.code]).toEqual([400, 'invalid_callback']);
    expect((await callback(got, { type: 'message', data: { content: 'Thanks!' } })).status).toBe(204);
    const answer = await w.memberGw.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'Thanks!');
    expect(answer.d.interaction).toMatchObject({ type: 'modalSubmit', name: 'feedback', user: { id: w.member.id } });
  });

  it("checks a modal's rules when the bot answers with it", async () => {
    const w = await setup();
    const refused = async (modal: object, code: string) => {
      const i = await run(w, w.member, w.channel.id, { name: 'feedback' });
      const r = await callback(i, { type: 'modal', data: { modal } });
      expect([r.status, r.body.code], r.text).toEqual([400, code]);
    };
    const input = FEEDBACK.components[0]!.components[0]!;
    await refused({ ...FEEDBACK, title: 'x'.repeat(46) }, 'invalid_body');
    await refused({ ...FEEDBACK, components: [] }, 'invalid_body');
    await refused({ ...FEEDBACK, components: Array(6).fill(FEEDBACK.components[0]) }, 'invalid_body');
    await refused({ ...FEEDBACK, components: [FEEDBACK.components[0], FEEDBACK.components[0]] }, 'invalid_modal');
    await refused({ ...FEEDBACK, components: [{ type: 'row', components: [{ ...input, label: 'x'.repeat(46) }] }] }, 'invalid_body');
    await refused({ ...FEEDBACK, components: [{ type: 'row', components: [{ ...input, minLength: 30 }] }] }, 'invalid_modal');
    await refused({ ...FEEDBACK, components: [{ type: 'row', components: [{ ...input, maxLength: 4001 }] }] }, 'invalid_body');
    // An autocomplete is never answered with one.
  });

  it('answers a click with a modal whose submit carries the message and may update it; within the 15 minutes only', async () => {
    const w = await setup();
    const i = await run(w, w.member, w.channel.id, { name: 'feedback' });
    await callback(i, {
      type: 'message',
      data: {
        content: 'Vote',
        components: [{ type: 'row', components: [{ type: 'button', style: 'primary', label: 'Why?', customId: 'why' }] }],
      },
    });
    const message = (await w.memberGw.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'Vote')).d;
    const click = await invoke(w.member, w.channel.id, { type: 'component', messageId: message.id, customId: 'why' });
    expect(click.status).toBe(202);
    const clicked = (await w.botGw.waitForEvent('INTERACTION_CREATE', (d) => d.id === click.body.id)).d;
    expect((await callback(clicked, { type: 'modal', data: { modal: FEEDBACK } })).status).toBe(204);
    await w.memberGw.waitForEvent('INTERACTION_MODAL', (d) => d.id === clicked.id);
    const ok = await invoke(w.member, w.channel.id, {
      type: 'modalSubmit',
      interactionId: clicked.id,
      customId: 'feedback',
      fields: [{ customId: 'subject', value: 'Because' }],
    });
    expect(ok.status, ok.text).toBe(202);
    const submitted = (await w.botGw.waitForEvent('INTERACTION_CREATE', (d) => d.id === ok.body.id)).d;
    expect(submitted).toMatchObject({ type: 'modalSubmit', messageId: message.id, message: { id: message.id, content: 'Vote' } });
    expect((await callback(submitted, { type: 'update', data: { content: 'Vote (explained)', components: [] } })).status).toBe(204);
    await w.memberGw.waitForEvent('MESSAGE_UPDATE', (d) => d.id === message.id && d.content === 'Vote (explained)');

    // Past the interaction's 15 minutes, a modal can no longer be submitted.
    const late = await run(w, w.member, w.channel.id, { name: 'feedback' });
    await callback(late, { type: 'modal', data: { modal: FEEDBACK } });
    const start = Date.now();
    srv.app.ctx.clock = () => start + 16 * 60_000;
    const r = await invoke(w.member, w.channel.id, {
      type: 'modalSubmit',
      interactionId: late.id,
      customId: 'feedback',
      fields: [{ customId: 'subject', value: 'Too late' }],
    });
    expect([r.status, r.body.code]).toEqual([400, 'interaction_expired']);
  });
});
