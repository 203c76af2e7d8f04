// Issue 36's acceptance with Oceanic.js 1.x: the shared bot scenario (library-scenario.ts),
// written with Oceanic's Client as a bot author would.
import {
  ApplicationCommandOptionTypes,
  ApplicationCommandTypes,
  ButtonStyles,
  Client,
  CommandInteraction,
  ComponentInteraction,
  ComponentTypes,
  ModalSubmitInteraction,
  TextInputStyles,
} from 'oceanic.js';
import { BUTTON_ID, CONFIG_COMMAND, MODAL_ID, TEXT_ID, type BotEnv, type LibraryBot, libraryScenario } from './library-scenario.js';

function oceanicBot(): LibraryBot {
  let client: Client | undefined;
  let readies = 0;
  return {
    async start({ base, token, kit }: BotEnv) {
      client = new Client({
        auth: `Bot ${token}`,
        gateway: { intents: ['GUILDS', 'GUILD_MESSAGES', 'MESSAGE_CONTENT'] },
        rest: { baseURL: `${base}/api/v10` },
      });
      const c = client;
      c.on('error', (err) => kit.fail(err));
      // shardReady also fires after a resume: count READY dispatches themselves.
      c.on('packet', (packet) => {
        if (packet.t === 'READY') readies++;
      });
      c.on('shardResume', () => kit.done('resumed'));
      c.on('messageCreate', async (message) => {
        if (message.author.bot || message.content !== '!info' || !message.member) return;
        try {
          const member = message.member;
          const send = member.permissions.has('SEND_MESSAGES');
          const reply = await c.rest.channels.createMessage(message.channelID, {
            embeds: [{ title: 'info', description: `roles ${member.roles.join(',')}; send ${send}` }],
            messageReference: { messageID: message.id },
          });
          kit.done('info', {
            messageId: reply.id,
            roles: member.roles,
            send,
            manageGuild: member.permissions.has('MANAGE_GUILD'),
            me: message.guild?.clientMember.roles ?? [],
          });
        } catch (err) {
          kit.fail(err);
        }
      });
      c.on('interactionCreate', async (i) => {
        try {
          if (i instanceof CommandInteraction && i.data.name === 'config') {
            const [sub] = i.data.options.getSubCommand(true);
            if (sub === 'reset') {
              await i.createModal({
                customID: MODAL_ID,
                title: 'Reset settings',
                components: [
                  {
                    type: ComponentTypes.ACTION_ROW,
                    components: [
                      {
                        type: ComponentTypes.TEXT_INPUT,
                        customID: TEXT_ID,
                        label: 'Type RESET',
                        style: TextInputStyles.SHORT,
                        required: true,
                        minLength: 5,
                        maxLength: 5,
                      },
                    ],
                  },
                ],
              });
              kit.done('modalShown');
              return;
            }
            const what = sub === 'show' ? i.data.options.getString('what', true) : undefined;
            await i.createMessage({
              content: sub === 'show' ? `show ${what}` : 'reset',
              components: [
                {
                  type: ComponentTypes.ACTION_ROW,
                  components: [{ type: ComponentTypes.BUTTON, customID: BUTTON_ID, label: 'Press', style: ButtonStyles.PRIMARY }],
                },
              ],
            });
            kit.done('command', { sub, what });
          } else if (i instanceof ComponentInteraction && i.data.customID === BUTTON_ID) {
            await i.editParent({ content: 'pressed', components: [] });
            kit.done('button', { customId: i.data.customID, messageId: i.message.id });
          } else if (i instanceof ModalSubmitInteraction && i.data.customID === MODAL_ID) {
            const value = i.data.components.getTextInput(TEXT_ID, true);
            await i.createMessage({ content: `reset ${value}` });
            kit.done('modal', { customId: i.data.customID, value });
          }
        } catch (err) {
          kit.fail(err);
        }
      });
      const ready = new Promise<void>((resolve) => c.once('ready', () => resolve()));
      await c.connect();
      await ready;
    },
    seen: () => ({ userId: client?.user?.id, guildIds: [...(client?.guilds.keys() ?? [])] }),
    readies: () => readies,
    async registerCommands() {
      const set = await client!.application.bulkEditGlobalCommands([
        {
          type: ApplicationCommandTypes.CHAT_INPUT,
          name: CONFIG_COMMAND.name,
          description: CONFIG_COMMAND.description,
          options: [
            {
              type: ApplicationCommandOptionTypes.SUB_COMMAND,
              name: 'show',
              description: 'Show one setting',
              options: [{ type: ApplicationCommandOptionTypes.STRING, name: 'what', description: 'Which setting', required: true }],
            },
            { type: ApplicationCommandOptionTypes.SUB_COMMAND, name: 'reset', description: 'Reset them all' },
          ],
        },
      ]);
      return set.map((c) => c.name);
    },
    async stop() {
      client?.disconnect(false);
    },
  };
}

libraryScenario('Oceanic.js', oceanicBot);
