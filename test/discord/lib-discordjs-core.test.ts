// Issue 36's acceptance with @discordjs/core on @discordjs/rest and @discordjs/ws 2.x: the
// shared bot scenario (library-scenario.ts). @discordjs/core keeps no cache, so the bot
// keeps what it needs from GUILD_CREATE and GUILD_MEMBER_UPDATE, as such bots do.
import {
  type APIRole,
  ButtonStyle,
  Client,
  ComponentType,
  GatewayDispatchEvents,
  GatewayIntentBits,
  InteractionType,
  PermissionFlagsBits,
  type APIApplicationCommandInteractionDataSubcommandOption,
  type APIChatInputApplicationCommandInteractionData,
} from '@discordjs/core';
import { REST } from '@discordjs/rest';
import { WebSocketManager, WebSocketShardEvents } from '@discordjs/ws';
import {
  BUTTON_ID,
  CONFIG_COMMAND,
  MODAL_ID,
  RESET_MODAL,
  TEXT_ID,
  type BotEnv,
  type LibraryBot,
  libraryScenario,
} from './library-scenario.js';

/** A member's permissions in a guild: @everyone's and its roles' bits (administrator grants all). */
function permissionsOf(guildId: string, roles: Map<string, APIRole>, memberRoles: string[]): bigint {
  let bits = BigInt(roles.get(guildId)?.permissions ?? '0');
  for (const id of memberRoles) bits |= BigInt(roles.get(id)?.permissions ?? '0');
  return bits & PermissionFlagsBits.Administrator ? ~0n : bits;
}

function coreBot(): LibraryBot {
  let gateway: WebSocketManager | undefined;
  let userId: string | undefined;
  let readies = 0;
  const guilds = new Map<string, { roles: Map<string, APIRole>; me: string[] }>();
  let client: Client | undefined;
  return {
    async start({ base, token, kit }: BotEnv) {
      const rest = new REST({ api: `${base}/api` }).setToken(token);
      gateway = new WebSocketManager({
        token,
        intents: GatewayIntentBits.Guilds | GatewayIntentBits.GuildMessages | GatewayIntentBits.MessageContent,
        rest,
      });
      const c = new Client({ rest, gateway });
      client = c;
      const ready = new Promise<void>((resolve) => {
        c.on(GatewayDispatchEvents.Ready, ({ data }) => {
          readies++;
          userId = data.user.id;
          resolve();
        });
      });
      gateway.on(WebSocketShardEvents.Resumed, () => kit.done('resumed'));
      c.on(GatewayDispatchEvents.GuildCreate, ({ data }) => {
        const me = data.members.find((m) => m.user.id === userId)?.roles ?? [];
        guilds.set(data.id, { roles: new Map(data.roles.map((r) => [r.id, r])), me });
      });
      c.on(GatewayDispatchEvents.GuildMemberUpdate, ({ data }) => {
        const g = guilds.get(data.guild_id);
        if (g && data.user.id === userId) g.me = data.roles;
      });
      c.on(GatewayDispatchEvents.MessageCreate, async ({ data: message, api }) => {
        if (message.author.bot || message.content !== '!info' || !message.guild_id || !message.member) return;
        try {
          const g = guilds.get(message.guild_id)!;
          const roles = message.member.roles;
          const perms = permissionsOf(message.guild_id, g.roles, roles);
          const send = (perms & PermissionFlagsBits.SendMessages) !== 0n;
          const reply = await api.channels.createMessage(message.channel_id, {
            embeds: [{ title: 'info', description: `roles ${roles.join(',')}; send ${send}` }],
            message_reference: { message_id: message.id },
          });
          kit.done('info', { messageId: reply.id, roles, send, manageGuild: (perms & PermissionFlagsBits.ManageGuild) !== 0n, me: g.me });
        } catch (err) {
          kit.fail(err);
        }
      });
      c.on(GatewayDispatchEvents.InteractionCreate, async ({ data: i, api }) => {
        try {
          if (i.type === InteractionType.ApplicationCommand && i.data.name === 'config') {
            const [sub] = (i.data as APIChatInputApplicationCommandInteractionData)
              .options as APIApplicationCommandInteractionDataSubcommandOption[];
            if (sub?.name === 'reset') {
              await api.interactions.createModal(
                i.id,
                i.token,
                RESET_MODAL as unknown as Parameters<typeof api.interactions.createModal>[2],
              );
              kit.done('modalShown');
              return;
            }
            const what = sub?.options?.find((o) => o.name === 'what')?.value as string | undefined;
            await api.interactions.reply(i.id, i.token, {
              content: sub?.name === 'show' ? `show ${what}` : 'reset',
              components: [
                {
                  type: ComponentType.ActionRow,
                  components: [{ type: ComponentType.Button, custom_id: BUTTON_ID, label: 'Press', style: ButtonStyle.Primary }],
                },
              ],
            });
            kit.done('command', { sub: sub?.name, what });
          } else if (i.type === InteractionType.MessageComponent && i.data.custom_id === BUTTON_ID) {
            await api.interactions.updateMessage(i.id, i.token, { content: 'pressed', components: [] });
            kit.done('button', { customId: i.data.custom_id, messageId: i.message.id });
          } else if (i.type === InteractionType.ModalSubmit && i.data.custom_id === MODAL_ID) {
            // Text inputs arrive in action rows (or, from newer clients, labels): look through both.
            const rows = i.data.components as unknown as Array<{
              components?: Array<{ custom_id: string; value: string }>;
              component?: { custom_id: string; value: string };
            }>;
            const value = rows
              .flatMap((r) => r.components ?? (r.component ? [r.component] : []))
              .find((c) => c.custom_id === TEXT_ID)?.value;
            await api.interactions.reply(i.id, i.token, { content: `reset ${value}` });
            kit.done('modal', { customId: i.data.custom_id, value });
          }
        } catch (err) {
          kit.fail(err);
        }
      });
      await gateway.connect();
      await ready;
    },
    seen: () => ({ userId, guildIds: [...guilds.keys()] }),
    readies: () => readies,
    async registerCommands() {
      const set = await client!.api.applicationCommands.bulkOverwriteGlobalCommands(userId!, [CONFIG_COMMAND]);
      return set.map((c) => c.name);
    },
    async stop() {
      await gateway?.destroy();
    },
  };
}

libraryScenario('@discordjs/core with @discordjs/ws', coreBot);
