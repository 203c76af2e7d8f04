// The SDK's commands and interactions against a real Parley: ParleyBot's command() and
// component() over the gateway, the HTTP handler (@parley/sdk/http) as the examples use
// it, and the two examples themselves.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError, ParleyBot, RestClient, button, modal, row, textInput } from '@parley/sdk';
import { startPingBot } from '../../examples/ping-bot/index.js';
import { startHttpBot } from '../../examples/http-bot/index.js';
import { call, joinServer, registerUser, world } from '../factories.js';
import { ClientPool } from '../gateway/client.js';
import { type TestServer, startServer } from '../harness.js';

let srv: TestServer;
const pool = new ClientPool();
const stops: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off', OUTGOING_ALLOW_PRIVATE: 'true' } });
});
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  await pool.closeAll();
});
afterAll(() => srv?.close());

async function setup() {
  const w = await world(srv.url);
  const member = await registerUser(srv.url);
  await joinServer(srv.url, w.owner, member, w.server.id);
  const memberGw = await pool.identify(srv.gatewayUrl, member.auth);
  const invoke = (body: object) => call(srv.url, 'POST', `/channels/${w.channel.id}/interactions`, { auth: member.auth, body });
  return { ...w, member, memberGw, invoke };
}

describe('ParleyBot.command and component', () => {
  it('registers on connect, answers, defers, follows up and handles its buttons', async () => {
    const w = await setup();
    const bot = new ParleyBot({ baseUrl: srv.url, token: w.bot.token });
    stops.push(() => bot.close());
    bot
      .command(
        'greet',
        { description: 'Greet someone', options: [{ type: 'user', name: 'who', description: 'Whom', required: true }] },
        async (i) => {
          await i.defer();
          await i.editOriginal({
            content: `Hello <@${i.option<string>('who')}>`,
            components: [row(button({ customId: 'wave', label: 'Wave' }))],
          });
          await i.followUp({ content: 'only you see this', ephemeral: true });
        },
      )
      .component('wave', (i) => i.update({ content: `${i.user.name} waved`, components: [] }));
    await bot.connect();
    expect((await bot.rest.getCommands(w.bot.id)).map((c) => c.name)).toEqual(['greet']);

    const r = await w.invoke({ type: 'command', botId: w.bot.id, name: 'greet', options: { who: w.owner.id } });
    expect(r.status, r.text).toBe(202);
    const placeholder = await w.memberGw.waitForEvent('MESSAGE_CREATE', (d) => d.interaction?.id === r.body.id && d.loading);
    const edited = await w.memberGw.waitForEvent(
      'MESSAGE_UPDATE',
      (d) => d.id === placeholder.d.id && d.content === `Hello <@${w.owner.id}>`,
    );
    await w.memberGw.waitForEvent('MESSAGE_CREATE', (d) => d.ephemeral && d.content === 'only you see this');

    const click = await w.invoke({ type: 'component', messageId: edited.d.id, customId: 'wave' });
    expect(click.status, click.text).toBe(202);
    await w.memberGw.waitForEvent('MESSAGE_UPDATE', (d) => d.id === edited.d.id && d.content === `${w.member.name} waved`);
  });

  it('defines a command with a subcommand group and reads the path and the options of the subcommand run', async () => {
    const w = await setup();
    const bot = new ParleyBot({ baseUrl: srv.url, token: w.bot.token });
    stops.push(() => bot.close());
    bot.command(
      'config',
      {
        description: 'Settings',
        options: [
          {
            type: 'subcommandGroup',
            name: 'role',
            description: 'Roles',
            options: [
              {
                type: 'subcommand',
                name: 'add',
                description: 'Add one',
                options: [{ type: 'string', name: 'name', description: 'Its name', required: true }],
              },
            ],
          },
          { type: 'subcommand', name: 'show', description: 'Show them' },
        ],
      },
      (i) =>
        i.reply(`${i.subcommandPath.join(' ')}: ${i.option<string>('name') ?? '-'} (${i.subcommandGroup ?? 'no group'}, ${i.subcommand})`),
    );
    await bot.connect();
    const r = await w.invoke({
      type: 'command',
      botId: w.bot.id,
      name: 'config',
      subcommandGroup: 'role',
      subcommand: 'add',
      options: { name: 'mods' },
    });
    expect(r.status, r.text).toBe(202);
    await w.memberGw.waitForEvent('MESSAGE_CREATE', (d) => d.interaction?.id === r.body.id && d.content === 'role add: mods (role, add)');
    const s = await w.invoke({ type: 'command', botId: w.bot.id, name: 'config', subcommand: 'show' });
    expect(s.status, s.text).toBe(202);
    await w.memberGw.waitForEvent('MESSAGE_CREATE', (d) => d.interaction?.id === s.body.id && d.content === 'show: - (no group, show)');
  });

  it('answers autocomplete from the definition', async () => {
    const w = await setup();
    const bot = new ParleyBot({ baseUrl: srv.url, token: w.bot.token });
    stops.push(() => bot.close());
    bot.command(
      'color',
      {
        description: 'Pick a colour',
        options: [{ type: 'string', name: 'name', description: 'Which', required: true, autocomplete: true }],
        autocomplete: (i) =>
          ['red', 'green', 'grey'].filter((c) => c.startsWith(String(i.option('name')))).map((c) => ({ name: c, value: c })),
      },
      (i) => i.reply(String(i.option('name'))),
    );
    await bot.connect();
    const r = await w.invoke({ type: 'autocomplete', botId: w.bot.id, name: 'color', options: { name: 'gr' }, focused: 'name' });
    expect(r.status, r.text).toBe(200);
    expect(r.body.choices).toEqual([
      { name: 'green', value: 'green' },
      { name: 'grey', value: 'grey' },
    ]);
  });
});

describe('ParleyBot user and message commands, and modals', () => {
  it('registers every type on connect, reads targets, shows a modal and reads its submit', async () => {
    const w = await setup();
    const bot = new ParleyBot({ baseUrl: srv.url, token: w.bot.token });
    stops.push(() => bot.close());
    const seen: Record<string, unknown> = {};
    bot
      .command('report', { description: 'Report a problem' }, (i) =>
        i.showModal(
          modal({
            customId: 'report:form',
            title: 'Report',
            inputs: [
              textInput({ customId: 'what', label: 'What happened?', style: 'paragraph', minLength: 5 }),
              textInput({ customId: 'where', label: 'Where', required: false, placeholder: 'a channel' }),
            ],
          }),
        ),
      )
      .userCommand('report', async (i) => {
        seen.user = [i.commandType, i.targetUser?.id, i.targetMember !== undefined];
        await i.reply({ content: `reported ${i.targetUser?.name}`, ephemeral: true });
      })
      .messageCommand('Quote', async (i) => {
        seen.message = [i.commandType, i.targetMessage?.content];
        await i.reply(`> ${i.targetMessage?.content}`);
      })
      .modal('report:', async (i) => {
        seen.modal = [i.customId, i.fields, i.field('what')];
        await i.reply(`Thanks: ${i.field('what')}`);
      });
    await bot.connect();
    const registered = await bot.rest.getCommands(w.bot.id);
    expect(registered.map((c) => `${c.type}:${c.name}`).sort()).toEqual(['chat:report', 'message:Quote', 'user:report']);

    const u = await w.invoke({ type: 'command', botId: w.bot.id, name: 'report', commandType: 'user', targetId: w.owner.id });
    expect(u.status, u.text).toBe(202);
    await w.memberGw.waitForEvent('MESSAGE_CREATE', (d) => d.content === `reported ${w.owner.name}`);
    expect(seen.user).toEqual(['user', w.owner.id, true]);

    const posted = await call(srv.url, 'POST', `/channels/${w.channel.id}/messages`, {
      auth: w.owner.auth,
      body: { content: 'wise words' },
    });
    await w.invoke({ type: 'command', botId: w.bot.id, name: 'Quote', commandType: 'message', targetId: posted.body.id });
    await w.memberGw.waitForEvent('MESSAGE_CREATE', (d) => d.content === '> wise words');
    expect(seen.message).toEqual(['message', 'wise words']);

    const r = await w.invoke({ type: 'command', botId: w.bot.id, name: 'report' });
    const shown = await w.memberGw.waitForEvent('INTERACTION_MODAL', (d) => d.id === r.body.id);
    expect(shown.d.modal.components.map((row: { components: Array<{ customId: string }> }) => row.components[0]!.customId)).toEqual([
      'what',
      'where',
    ]);
    const submit = await w.invoke({
      type: 'modalSubmit',
      interactionId: r.body.id,
      customId: 'report:form',
      fields: [{ customId: 'what', value: 'It broke' }],
    });
    expect(submit.status, submit.text).toBe(202);
    await w.memberGw.waitForEvent('MESSAGE_CREATE', (d) => d.content === 'Thanks: It broke');
    expect(seen.modal).toEqual(['report:form', { what: 'It broke', where: '' }, 'It broke']);
  });
});

describe('RestClient interaction calls', () => {
  it('throw typed errors that do not repeat the token', async () => {
    const w = await world(srv.url);
    const rest = new RestClient({ baseUrl: srv.url, token: w.bot.token });
    const secret = `${'Zq'.repeat(21)}x`;
    const err = await rest.followUp(`1234.${secret}`, { content: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as NotFoundError).code).toBe('unknown_interaction');
    expect(JSON.stringify({ ...(err as NotFoundError), message: (err as Error).message })).not.toContain(secret);
  });
});

describe('examples/ping-bot', () => {
  it('/roll answers with a Roll again button, and the button rolls again', async () => {
    const w = await setup();
    const bot = await startPingBot({ baseUrl: srv.url, token: w.bot.token });
    stops.push(() => bot.close());
    const r = await w.invoke({ type: 'command', botId: w.bot.id, name: 'roll', options: { sides: 20, dice: 2 } });
    expect(r.status, r.text).toBe(202);
    const answer = await w.memberGw.waitForEvent('MESSAGE_CREATE', (d) => d.interaction?.id === r.body.id);
    expect(answer.d.content).toMatch(/^🎲 2d20: \d+ \+ \d+ = \*\*\d+\*\*$/u);
    expect(answer.d.components[0].components[0]).toMatchObject({ type: 'button', customId: 'roll:2d20', label: 'Roll again' });
    const click = await w.invoke({ type: 'component', messageId: answer.d.id, customId: 'roll:2d20' });
    expect(click.status, click.text).toBe(202);
    const again = await w.memberGw.waitForEvent('MESSAGE_UPDATE', (d) => d.id === answer.d.id);
    expect(again.d.content).toMatch(/^🎲 2d20: /u);
  });
});

describe('examples/http-bot (createInteractionsHandler)', () => {
  async function httpBot() {
    const w = await setup();
    const publicKey = (await call(srv.url, 'GET', '/bots', { auth: w.owner.auth })).body[0].publicKey as string;
    const bot = await startHttpBot({ baseUrl: srv.url, token: w.bot.token, publicKey });
    stops.push(() => bot.close());
    const set = await call(srv.url, 'PATCH', `/bots/${w.bot.id}`, { auth: w.owner.auth, body: { interactionsUrl: bot.url } });
    expect(set.status, set.text).toBe(200);
    return { ...w, endpoint: bot.url };
  }

  it('answers commands over HTTP: a roll with its button, an ephemeral echo, autocomplete', async () => {
    const w = await httpBot();
    const r = await w.invoke({ type: 'command', botId: w.bot.id, name: 'roll', options: { sides: 12 } });
    expect(r.status, r.text).toBe(202);
    const answer = await w.memberGw.waitForEvent('MESSAGE_CREATE', (d) => d.interaction?.id === r.body.id);
    expect(answer.d.content).toMatch(/^🎲 d12: \*\*\d+\*\*$/u);
    const click = await w.invoke({ type: 'component', messageId: answer.d.id, customId: 'roll:12' });
    expect(click.status).toBe(202);
    await w.memberGw.waitForEvent('MESSAGE_UPDATE', (d) => d.id === answer.d.id);

    const echo = await w.invoke({ type: 'command', botId: w.bot.id, name: 'echo', options: { text: 'psst' } });
    const secret = await w.memberGw.waitForEvent('MESSAGE_CREATE', (d) => d.interaction?.id === echo.body.id);
    expect(secret.d).toMatchObject({ content: 'You said: psst', ephemeral: true });

    const ac = await w.invoke({ type: 'autocomplete', botId: w.bot.id, name: 'fruit', options: { name: 'ap' }, focused: 'name' });
    expect(ac.body.choices).toEqual([
      { name: 'apple', value: 'apple' },
      { name: 'apricot', value: 'apricot' },
    ]);
  });

  it('refuses a request whose signature does not verify (401), and one too old', async () => {
    const w = await httpBot();
    const body = JSON.stringify({ type: 'ping' });
    const now = String(Math.floor(Date.now() / 1000));
    const forged = await fetch(w.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-signature-ed25519': 'ab'.repeat(64), 'x-signature-timestamp': now },
      body,
    });
    expect(forged.status).toBe(401);
    const unsigned = await fetch(w.endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(unsigned.status).toBe(401);
  });
});
