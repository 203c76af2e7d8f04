/**
 * The one bot scenario every Discord library runs against a real Parley (issue 36's
 * acceptance). Each library's test file supplies a thin adapter: the same small bot,
 * written with that library's public API as a bot author would write it. The scenario
 * drives it as people would (Parley's native API) and checks what the bot did through
 * Parley's Discord REST API:
 *
 * 1. login: READY, and the library's guild cache holds the server;
 * 2. `!info` from a member: the bot reads `message.member` (its roles, and its permissions
 *    through the library's own permission check) and answers with an embed reply;
 * 3. `/config show what:<x>`, a slash command with subcommands registered through the
 *    library's bulk overwrite and run by a person: the bot reads the subcommand and its
 *    option and answers with a button;
 * 4. the button clicked: the bot answers with an update (callback type 7) of that message;
 * 5. `/config reset`: the bot answers with a modal (callback type 9) holding one text
 *    input; the person submits it and the bot reads the value from the MODAL_SUBMIT
 *    interaction (type 5) and replies;
 * 6. resume after a role change: the bot's connection is dropped by the server (as a
 *    network failure would), the bot is given a role and a member posts `!info` while it is
 *    away; the library resumes (no second READY), and answers that message, and its cache
 *    holds the new role (the replayed GUILD_MEMBER_UPDATE).
 */
import type { RESTPostAPIChatInputApplicationCommandsJSONBody } from 'discord-api-types/v10';
import type { WebSocketServer } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createBot, createServer, joinServer, postMessage, registerUser, type TestUser } from '../factories.js';
import { startServer, type TestServer } from '../harness.js';

/** The slash command every adapter registers (Discord's JSON; subcommands are option type 1). */
export const CONFIG_COMMAND: RESTPostAPIChatInputApplicationCommandsJSONBody = {
  name: 'config',
  description: 'Settings',
  options: [
    {
      type: 1,
      name: 'show',
      description: 'Show one setting',
      options: [{ type: 3, name: 'what', description: 'Which setting', required: true }],
    },
    { type: 1, name: 'reset', description: 'Reset them all' },
  ],
};

/** The button's custom id. */
export const BUTTON_ID = 'config:press';

/** The modal `/config reset` is answered with, and its one text input's custom id. */
export const MODAL_ID = 'config:confirm';
export const TEXT_ID = 'config:word';
/** The modal in Discord's JSON (libraries that take raw payloads send it as is). */
export const RESET_MODAL = {
  custom_id: MODAL_ID,
  title: 'Reset settings',
  components: [
    { type: 1, components: [{ type: 4, custom_id: TEXT_ID, label: 'Type RESET', style: 1, required: true, min_length: 5, max_length: 5 }] },
  ],
} as const;

/** What the bot reports after acting; the scenario waits on these, never on time. */
export interface Kit {
  /** The bot finished a step (its library call resolved). */
  done(step: Step, detail?: Record<string, unknown>): void;
  /** A handler threw: every wait fails with it. */
  fail(err: unknown): void;
}

export type Step =
  /** After answering `!info`: `{ messageId (the reply), roles (author's role ids), send, manageGuild (from the library's permission check), me (the bot's own role ids, from the library's cache) }`. */
  | 'info'
  /** After answering `/config`: `{ sub, what }` as the library parsed them. */
  | 'command'
  /** After answering the button with an update: `{ customId, messageId }`. */
  | 'button'
  /** After answering `/config reset` with `RESET_MODAL`. */
  | 'modalShown'
  /** After replying to the modal's submit with content `reset <value>`: `{ customId, value }` as the library parsed them. */
  | 'modal'
  /** The library resumed its gateway session. */
  | 'resumed';

/** Everything an adapter needs to start its bot. */
export interface BotEnv {
  /** Parley's base URL (http://127.0.0.1:port). */
  base: string;
  /** The bot token, bare (as libraries take it). */
  token: string;
  /** The CA to trust when `base` is served by a TLS front (`ScenarioOptions.front`). */
  ca?: string;
  kit: Kit;
}

/**
 * A bot written with one library. Its handlers must: answer a message `!info` with an embed
 * reply (title `info`) and report `info`; answer `/config show|reset` with content
 * `show <what>` or `reset` and one button (custom id `BUTTON_ID`) and report `command`;
 * answer a click on that button with an update to content `pressed` and no components and
 * report `button`; answer `/config reset` with `RESET_MODAL` and report `modalShown`;
 * answer that modal's submit with a reply `reset <value of TEXT_ID>` and report `modal`;
 * report `resumed` when its gateway session resumes.
 */
export interface LibraryBot {
  /** Logs in; resolves once READY has been handled. */
  start(env: BotEnv): Promise<void>;
  /** The bot's user id and the guild ids in the library's cache. */
  seen(): { userId: string | undefined; guildIds: string[] };
  /** How many READY dispatches the library has handled (a resume adds none). */
  readies(): number;
  /** Registers `CONFIG_COMMAND` with the library's bulk overwrite; resolves with the names it read back. */
  registerCommands(): Promise<string[]>;
  stop(): Promise<void>;
}

export interface ScenarioOptions {
  /** Extra server settings. */
  env?: Record<string, string>;
  /** Wraps the started server (e.g. a TLS terminator in front of it); its `close` runs before the server's. */
  front?: (srv: TestServer) => Promise<{ base: string; ca?: string; close(): Promise<void> }>;
}

/** Waits on the bot's reports. */
class Reports implements Kit {
  private readonly got = new Map<Step, Array<Record<string, unknown>>>();
  private readonly waiting: Array<{ step: Step; n: number; resolve: (d: Record<string, unknown>) => void; reject: (e: unknown) => void }> =
    [];
  private failure: unknown;

  done(step: Step, detail: Record<string, unknown> = {}): void {
    const list = this.got.get(step) ?? [];
    list.push(detail);
    this.got.set(step, list);
    this.settle();
  }

  fail(err: unknown): void {
    this.failure ??= err;
    this.settle();
  }

  count(step: Step): number {
    return this.got.get(step)?.length ?? 0;
  }

  /** The `n`th report of `step` (1-based). */
  wait(step: Step, n: number, timeoutMs = 8000): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`the bot reported no ${step} #${n} within ${timeoutMs} ms`)), timeoutMs);
      this.waiting.push({
        step,
        n,
        resolve: (d) => {
          clearTimeout(t);
          resolve(d);
        },
        reject: (e) => {
          clearTimeout(t);
          reject(e);
        },
      });
      this.settle();
    });
  }

  private settle(): void {
    for (const w of [...this.waiting]) {
      const d = this.got.get(w.step)?.[w.n - 1];
      if (this.failure === undefined && !d) continue;
      this.waiting.splice(this.waiting.indexOf(w), 1);
      if (this.failure !== undefined) w.reject(this.failure);
      else w.resolve(d!);
    }
  }
}

/** Drops every gateway connection of `srv` as a network failure would (no close frame): the sessions stay resumable. */
export function dropGatewayConnections(srv: TestServer): number {
  // biome-ignore lint/complexity/useLiteralKeys: the gateway's socket server is private; a test reaches in to cut the line.
  const wss = srv.app.gateway['wss'] as WebSocketServer;
  let n = 0;
  for (const c of wss.clients) {
    c.terminate();
    n++;
  }
  return n;
}

const SEND_MESSAGES = 1n << 11n;
const BOT_BITS = [10, 11, 14, 15, 16, 6].reduce((a, b) => a | (1n << BigInt(b)), 0n); // view, send, embed, files, history, react

/** Declares the scenario's tests for one library. */
export function libraryScenario(library: string, makeBot: () => LibraryBot, opts: ScenarioOptions = {}): void {
  describe(`${library} runs the shared bot scenario against Parley`, () => {
    let srv: TestServer;
    let front: { base: string; ca?: string; close(): Promise<void> } | undefined;
    let bot: LibraryBot;
    const reports = new Reports();
    const w = {} as {
      owner: TestUser;
      alice: TestUser;
      serverId: string;
      channelId: string;
      botId: string;
      botAuth: string;
      helperRole: string;
      commandReply?: string;
    };

    beforeAll(async () => {
      srv = await startServer({ env: { RATE_LIMITS: 'off', ...opts.env } });
      front = await opts.front?.(srv);
      w.owner = await registerUser(srv.url);
      w.alice = await registerUser(srv.url);
      const { server, general } = await createServer(srv.url, w.owner);
      [w.serverId, w.channelId] = [server.id, general.id];
      const b = await createBot(srv.url, w.owner);
      [w.botId, w.botAuth] = [b.id, b.auth];
      const added = await call(srv.url, 'POST', `/servers/${server.id}/bots`, {
        auth: w.owner.auth,
        body: { botId: b.id, permissions: BOT_BITS.toString() },
      });
      if (added.status !== 201) throw new Error(`add bot: ${added.status} ${added.text}`);
      await joinServer(srv.url, w.owner, w.alice, server.id);
      const role = await call(srv.url, 'POST', `/servers/${server.id}/roles`, {
        auth: w.owner.auth,
        body: { name: 'helper', permissions: '0' },
      });
      w.helperRole = role.body.id;
      await call(srv.url, 'PUT', `/servers/${server.id}/members/${w.alice.id}/roles/${w.helperRole}`, { auth: w.owner.auth });
      bot = makeBot();
      await bot.start({ base: front?.base ?? srv.url, token: b.token, kit: reports, ...(front?.ca ? { ca: front.ca } : {}) });
    }, 20_000);

    afterAll(async () => {
      await bot?.stop();
      await front?.close();
      await srv?.close();
    });

    /** A message as the bot reads it through Parley's Discord API. */
    const fetchMessage = async (id: string) => {
      const r = await call(srv.url, 'GET', `/api/v10/channels/${w.channelId}/messages/${id}`, { auth: w.botAuth });
      expect(r.status, r.text).toBe(200);
      return r.body;
    };

    it('logs in: READY, with its guild cached', () => {
      expect(bot.seen()).toEqual({ userId: w.botId, guildIds: [w.serverId] });
      expect(bot.readies()).toBe(1);
    });

    it('reads messageCreate with its member (roles and permissions) and replies with an embed', async () => {
      const asked = await postMessage(srv.url, w.alice.auth, w.channelId, '!info');
      const info = await reports.wait('info', 1);
      expect(info).toMatchObject({ roles: [w.helperRole], send: true, manageGuild: false });
      const reply = await fetchMessage(info.messageId as string);
      expect(reply.author.id).toBe(w.botId);
      expect(reply.message_reference?.message_id).toBe(asked.id);
      expect(reply.embeds).toMatchObject([{ title: 'info', description: `roles ${w.helperRole}; send true` }]);
      // Only @everyone grants SEND_MESSAGES (helper has no bits): a library that left it out would say false.
      const roles = (await call(srv.url, 'GET', `/api/v10/guilds/${w.serverId}/roles`, { auth: w.botAuth })).body as Array<{
        id: string;
        permissions: string;
      }>;
      const everyone = roles.find((r) => r.id === w.serverId);
      expect(BigInt(everyone?.permissions ?? '0') & SEND_MESSAGES).toBe(SEND_MESSAGES);
      expect(roles.find((r) => r.id === w.helperRole)?.permissions).toBe('0');
    });

    it('registers a slash command with subcommands and answers it with a button', async () => {
      expect(await bot.registerCommands()).toEqual(['config']);
      const listed = await call(srv.url, 'GET', `/api/v10/applications/${w.botId}/commands`, { auth: w.botAuth });
      expect(listed.body).toMatchObject([
        {
          name: 'config',
          options: [
            { type: 1, name: 'show' },
            { type: 1, name: 'reset' },
          ],
        },
      ]);
      const run = await call(srv.url, 'POST', `/channels/${w.channelId}/interactions`, {
        auth: w.alice.auth,
        body: { type: 'command', botId: w.botId, name: 'config', subcommand: 'show', options: { what: 'colour' } },
      });
      expect(run.status, run.text).toBe(202);
      expect(await reports.wait('command', 1)).toEqual({ sub: 'show', what: 'colour' });
      const latest = await call(srv.url, 'GET', `/api/v10/channels/${w.channelId}/messages?limit=1`, { auth: w.botAuth });
      const answer = latest.body[0];
      expect(answer).toMatchObject({
        content: 'show colour',
        author: { id: w.botId },
        interaction_metadata: { user: { id: w.alice.id } },
        components: [{ type: 1, components: [{ type: 2, custom_id: BUTTON_ID }] }],
      });
      w.commandReply = answer.id;
    });

    it('answers a button click with an update of the message', async () => {
      expect(w.commandReply).toBeDefined();
      const click = await call(srv.url, 'POST', `/channels/${w.channelId}/interactions`, {
        auth: w.alice.auth,
        body: { type: 'component', messageId: w.commandReply, customId: BUTTON_ID },
      });
      expect(click.status, click.text).toBe(202);
      expect(await reports.wait('button', 1)).toEqual({ customId: BUTTON_ID, messageId: w.commandReply });
      const updated = await fetchMessage(w.commandReply!);
      expect([updated.content, updated.components ?? []]).toEqual(['pressed', []]);
    });

    it('answers a slash command with a modal, and reads what the person typed into it', async () => {
      const run = await call(srv.url, 'POST', `/channels/${w.channelId}/interactions`, {
        auth: w.alice.auth,
        body: { type: 'command', botId: w.botId, name: 'config', subcommand: 'reset' },
      });
      expect(run.status, run.text).toBe(202);
      await reports.wait('modalShown', 1);
      // The person fills in the form the web client drew from the modal (INTERACTION_MODAL).
      const submit = await call(srv.url, 'POST', `/channels/${w.channelId}/interactions`, {
        auth: w.alice.auth,
        body: { type: 'modalSubmit', interactionId: run.body.id, customId: MODAL_ID, fields: [{ customId: TEXT_ID, value: 'RESET' }] },
      });
      expect(submit.status, submit.text).toBe(202);
      expect(await reports.wait('modal', 1)).toEqual({ customId: MODAL_ID, value: 'RESET' });
      const latest = await call(srv.url, 'GET', `/api/v10/channels/${w.channelId}/messages?limit=1`, { auth: w.botAuth });
      expect(latest.body[0]).toMatchObject({ content: 'reset RESET', author: { id: w.botId }, interaction_metadata: { type: 5 } });
    });

    it('resumes after its role changed while it was away, and answers the message posted meanwhile', async () => {
      const role = await call(srv.url, 'POST', `/servers/${w.serverId}/roles`, {
        auth: w.owner.auth,
        body: { name: 'reactor', permissions: '0' },
      });
      expect(role.status).toBe(201);
      const before = reports.count('info');
      expect(reports.count('resumed')).toBe(0);
      expect(dropGatewayConnections(srv)).toBe(1);
      const grant = await call(srv.url, 'PUT', `/servers/${w.serverId}/members/${w.botId}/roles/${role.body.id}`, { auth: w.owner.auth });
      expect(grant.status, grant.text).toBe(204);
      const asked = await postMessage(srv.url, w.alice.auth, w.channelId, '!info');
      // Posted before the library resumed: it reaches the bot by the resume's replay.
      expect(reports.count('resumed')).toBe(0);
      await reports.wait('resumed', 1);
      const info = await reports.wait('info', before + 1);
      expect(info.me).toContain(role.body.id);
      expect((await fetchMessage(info.messageId as string)).message_reference?.message_id).toBe(asked.id);
      expect(bot.readies()).toBe(1);
    });
  });
}
