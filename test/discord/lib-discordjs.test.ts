// Issue 36's acceptance with discord.js 14: the shared bot scenario (library-scenario.ts),
// written with discord.js's Client as a bot author would.
import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  Client,
  EmbedBuilder,
  Events,
  GatewayIntentBits,
  ModalBuilder,
  PermissionFlagsBits,
  TextInputBuilder,
  TextInputStyle,
} from 'discord.js';
import { BUTTON_ID, CONFIG_COMMAND, MODAL_ID, TEXT_ID, type BotEnv, type LibraryBot, libraryScenario } from './library-scenario.js';

function discordJsBot(): LibraryBot {
  let client: Client | undefined;
  let readies = 0;
  return {
    async start({ base, token, kit }: BotEnv) {
      client = new Client({
        intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent],
        rest: { api: `${base}/api` },
      });
      const c = client;
      c.on(Events.ShardReady, () => readies++);
      c.on(Events.ShardResume, () => kit.done('resumed'));
      c.on(Events.MessageCreate, async (message) => {
        if (message.author.bot || message.content !== '!info' || !message.member) return;
        try {
          const member = message.member;
          const roles = member.roles.cache.filter((r) => r.id !== message.guildId).map((r) => r.id);
          const send = member.permissions.has(PermissionFlagsBits.SendMessages);
          const reply = await message.reply({
            embeds: [new EmbedBuilder().setTitle('info').setDescription(`roles ${roles.join(',')}; send ${send}`)],
          });
          const me = message.guild?.members.me?.roles.cache.map((r) => r.id) ?? [];
          kit.done('info', { messageId: reply.id, roles, send, manageGuild: member.permissions.has(PermissionFlagsBits.ManageGuild), me });
        } catch (err) {
          kit.fail(err);
        }
      });
      c.on(Events.InteractionCreate, async (i) => {
        try {
          if (i.isChatInputCommand() && i.commandName === 'config') {
            const sub = i.options.getSubcommand();
            if (sub === 'reset') {
              const word = new TextInputBuilder()
                .setCustomId(TEXT_ID)
                .setLabel('Type RESET')
                .setStyle(TextInputStyle.Short)
                .setRequired(true)
                .setMinLength(5)
                .setMaxLength(5);
              await i.showModal(
                new ModalBuilder()
                  .setCustomId(MODAL_ID)
                  .setTitle('Reset settings')
                  .addComponents(new ActionRowBuilder<TextInputBuilder>().addComponents(word)),
              );
              kit.done('modalShown');
              return;
            }
            const what = sub === 'show' ? i.options.getString('what', true) : undefined;
            const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
              new ButtonBuilder().setCustomId(BUTTON_ID).setLabel('Press').setStyle(ButtonStyle.Primary),
            );
            await i.reply({ content: sub === 'show' ? `show ${what}` : 'reset', components: [row] });
            kit.done('command', { sub, what });
          } else if (i.isButton() && i.customId === BUTTON_ID) {
            await i.update({ content: 'pressed', components: [] });
            kit.done('button', { customId: i.customId, messageId: i.message.id });
          } else if (i.isModalSubmit() && i.customId === MODAL_ID) {
            const value = i.fields.getTextInputValue(TEXT_ID);
            await i.reply({ content: `reset ${value}` });
            kit.done('modal', { customId: i.customId, value });
          }
        } catch (err) {
          kit.fail(err);
        }
      });
      const ready = new Promise<void>((resolve) => c.once(Events.ClientReady, () => resolve()));
      await c.login(token);
      await ready;
    },
    seen: () => ({ userId: client?.user?.id, guildIds: [...(client?.guilds.cache.keys() ?? [])] }),
    readies: () => readies,
    async registerCommands() {
      const set = await client!.application!.commands.set([CONFIG_COMMAND]);
      return set.map((c) => c.name);
    },
    async stop() {
      await client?.destroy();
    },
  };
}

libraryScenario('discord.js 14', discordJsBot);
