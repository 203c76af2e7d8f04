// The example bot end to end: a person posts commands over HTTP, the bot (started
// in-process through the SDK) answers through a real Parley.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareIds } from '@parley/protocol';
import { GatewayClient, RestClient, type Message, type ParleyBot, type ReactionEvent, type TypingStartEvent } from '@parley/sdk';
import { MAX_DICE, MAX_SIDES, parseDice, rollDice, startPingBot } from '../../examples/ping-bot/index.js';
import { addBot, createBot, postMessage, world } from '../factories.js';
import { startServer, type TestServer } from '../harness.js';

let srv: TestServer;
let w: Awaited<ReturnType<typeof world>>;
let bot: ParleyBot;
let owner: RestClient; // the person, through the same SDK with their session token
let ownerGateway: GatewayClient; // and their live view of the channel

/** What the owner's gateway has delivered, and who waits for what. */
const delivered: Array<{ t: string; d: any }> = [];
let waiters: Array<{ match: (e: { t: string; d: any }) => boolean; found: (d: any) => void }> = [];

/** The first event (delivered already or still to come) of type `t` that `pred` accepts; rejects after `timeoutMs`. */
function delivery<T = any>(t: string, pred: (d: T) => boolean, what: string, timeoutMs = 5000): Promise<T> {
  const match = (e: { t: string; d: any }) => e.t === t && pred(e.d);
  const seen = delivered.find(match);
  if (seen) return Promise.resolve(seen.d);
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      waiters = waiters.filter((x) => x !== waiter);
      reject(new Error(`no ${t} for ${what} within ${timeoutMs} ms`));
    }, timeoutMs);
    const waiter = {
      match,
      found: (d: T) => {
        clearTimeout(timer);
        resolve(d);
      },
    };
    waiters.push(waiter);
  });
}

beforeAll(async () => {
  srv = await startServer();
  w = await world(srv.url);
  bot = await startPingBot({ baseUrl: srv.url, token: w.bot.token, slowDelayMs: 500 });
  owner = new RestClient({ baseUrl: srv.url, token: w.owner.token, tokenType: 'Bearer' });
  ownerGateway = new GatewayClient({ url: srv.gatewayUrl, token: w.owner.auth });
  ownerGateway.on('dispatch', (e) => {
    delivered.push(e);
    for (const x of waiters.filter((x) => x.match(e))) {
      waiters = waiters.filter((y) => y !== x);
      x.found(e.d);
    }
  });
  await ownerGateway.connect();
});

afterAll(async () => {
  await ownerGateway?.close();
  await bot?.close();
  await srv?.close();
});

/** Posts `content` as the owner and waits for the bot's first message after it. */
async function ask(content: string, timeoutMs = 5000): Promise<{ command: Message; reply: Message }> {
  const command = await owner.sendMessage(w.channel.id, content);
  const reply = await waitForBotMessage(command.id, timeoutMs);
  return { command, reply };
}

/** The bot's first message after `afterId`, as the owner's gateway delivers it. */
function waitForBotMessage(afterId: string, timeoutMs = 5000): Promise<Message> {
  return delivery<Message>(
    'MESSAGE_CREATE',
    (m) => m.author.id === w.bot.id && m.channelId === w.channel.id && compareIds(m.id, afterId) > 0,
    `a bot reply after ${afterId}`,
    timeoutMs,
  );
}

describe('ping bot (examples/ping-bot)', () => {
  it('answers !ping with pong', async () => {
    const command = await postMessage(srv.url, w.owner.auth, w.channel.id, '!ping');
    const reply = await waitForBotMessage(command.id);
    expect(reply).toMatchObject({ content: 'pong', author: { id: w.bot.id, bot: true }, channelId: w.channel.id });
  });

  it('rolls dice with !roll NdM', async () => {
    const { reply } = await ask('!roll 2d6');
    const match = /^🎲 2d6: (\d) \+ (\d) = \*\*(\d+)\*\*$/u.exec(reply.content);
    expect(match, reply.content).not.toBeNull();
    const [a, b, total] = match!.slice(1).map(Number) as [number, number, number];
    expect(a).toBeGreaterThanOrEqual(1);
    expect(b).toBeLessThanOrEqual(6);
    expect(total).toBe(a + b);

    expect((await ask('!roll d20')).reply.content).toMatch(/^🎲 1d20: \*\*([1-9]|1\d|20)\*\*$/u);
    expect((await ask('!roll 1000d6')).reply.content).toContain(`between 1 and ${MAX_DICE} dice`);
    expect((await ask('!roll 2d1')).reply.content).toContain(`between 2 and ${MAX_SIDES} sides`);
    expect((await ask('!roll banana')).reply.content).toContain('Usage');
  });

  it('reacts 👍 to !react', async () => {
    const command = await owner.sendMessage(w.channel.id, '!react');
    const added = await delivery<ReactionEvent>('REACTION_ADD', (r) => r.messageId === command.id, `a reaction to ${command.id}`);
    expect(added).toMatchObject({ emoji: '👍', userId: w.bot.id, count: 1 });
    const { reactions } = await owner.getMessage(w.channel.id, command.id);
    expect(reactions).toContainEqual(expect.objectContaining({ emoji: '👍', count: 1 }));
  });

  it('shows typing before the slow answer to !slow', async () => {
    const watcher = new GatewayClient({ url: srv.gatewayUrl, token: w.owner.auth });
    const typing: TypingStartEvent[] = [];
    // Settles when the watcher's gateway delivers the bot's reply: REST may show it first.
    let replySeen!: (typingBefore: boolean) => void;
    const typingBeforeReply = new Promise<boolean>((resolve) => (replySeen = resolve));
    watcher.on('dispatch', (e) => {
      if (e.t === 'TYPING_START') typing.push(e.d as TypingStartEvent);
      if (e.t === 'MESSAGE_CREATE' && (e.d as Message).author.id === w.bot.id) replySeen(typing.length > 0);
    });
    // A person hears typing in the channel they look at (said before connecting: the client sends it with every identify).
    watcher.focus(w.channel.id);
    await watcher.connect();
    try {
      const { command, reply } = await ask('!slow');
      expect(reply.content).toMatch(/wait/);
      expect(typing).toContainEqual({ channelId: w.channel.id, serverId: w.server.id, userId: w.bot.id, name: w.bot.name, bot: true });
      expect(await typingBeforeReply).toBe(true);
      expect(Date.parse(reply.createdAt) - Date.parse(command.createdAt)).toBeGreaterThanOrEqual(450);
    } finally {
      await watcher.close();
    }
  });

  it('uploads a file for !file and posts it as an attachment', async () => {
    const { reply } = await ask('!file');
    expect(reply.attachments).toHaveLength(1);
    const [attachment] = reply.attachments;
    expect(attachment).toMatchObject({ filename: 'hello.txt' });
    expect(attachment!.url.startsWith(`${srv.url}/uploads/`)).toBe(true);
    const served = await fetch(attachment!.url);
    expect(await served.text()).toContain('Hello from the ping bot!');
  });

  it('ignores other bots and itself', async () => {
    const other = await createBot(srv.url, w.owner);
    await addBot(srv.url, w.owner, w.server.id, other.id);
    const otherRest = new RestClient({ baseUrl: srv.url, token: other.token });
    const fromBot = await otherRest.sendMessage(w.channel.id, '!ping');
    const fromItself = await bot.rest.sendMessage(w.channel.id, '!ping');
    // A marker from a person afterwards: once it is answered, the two above were seen too.
    const { reply } = await ask('!ping');
    const since = await owner.getMessages(w.channel.id, { after: fromBot.id });
    const pongs = since.filter((m) => m.author.id === w.bot.id && m.content === 'pong');
    expect(pongs.map((m) => m.id)).toEqual([reply.id]);
    expect(since.map((m) => m.id)).toContain(fromItself.id);
  });
});

describe('dice parsing', () => {
  it('accepts NdM within bounds and rejects the rest', () => {
    expect(parseDice('2d6')).toEqual({ count: 2, sides: 6 });
    expect(parseDice('D20')).toEqual({ count: 1, sides: 20 });
    expect(parseDice(`${MAX_DICE}d${MAX_SIDES}`)).toEqual({ count: MAX_DICE, sides: MAX_SIDES });
    for (const bad of ['0d6', `${MAX_DICE + 1}d6`, '2d1', `1d${MAX_SIDES + 1}`, '2d', 'd', '2x6', '-1d6', '2d6+1', '']) {
      expect(parseDice(bad), bad).toHaveProperty('error');
    }
  });

  it('rolls within range and totals the dice', () => {
    const roll = rollDice(50, 6);
    expect(roll.rolls).toHaveLength(50);
    expect(roll.rolls.every((r) => r >= 1 && r <= 6)).toBe(true);
    expect(roll.total).toBe(roll.rolls.reduce((a, b) => a + b, 0));
  });
});
