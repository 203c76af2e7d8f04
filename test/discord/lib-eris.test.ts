// Issue 36's acceptance with Eris 0.18: the shared bot scenario (library-scenario.ts),
// written with Eris's Client as a bot author would. Eris's REST client speaks only HTTPS
// to port 443 of `rest.domain`; here it reaches Parley through a TLS terminator made in the
// test (tls-front.ts), trusting its certificate and naming its port through the HTTPS agent.
// The gateway URL comes from `GET /gateway/bot` (Parley's own, plain ws://).
import https from 'node:https';
import { Client, CommandInteraction, ComponentInteraction, Constants, ModalSubmitInteraction } from 'eris';
import { BUTTON_ID, CONFIG_COMMAND, MODAL_ID, TEXT_ID, type BotEnv, type LibraryBot, libraryScenario } from './library-scenario.js';
import { tlsFront } from './tls-front.js';

function erisBot(): LibraryBot {
  let bot: Client | undefined;
  let readies = 0;
  return {
    async start({ base, token, kit, ca }: BotEnv) {
      const url = new URL(base);
      // Eris requests port 443 of `rest.domain`; another port is the agent's default port.
      const agent = Object.assign(new https.Agent({ ca, keepAlive: true }), { defaultPort: Number(url.port) });
      bot = new Client(`Bot ${token}`, {
        intents: ['guilds', 'guildMessages', 'messageContent'],
        rest: { domain: url.hostname, agent },
      });
      const b = bot;
      // Eris reports a dropped connection as an error, then reconnects on its own; the scenario
      // checks the outcome (resumed, the message answered), so errors are only listened to.
      b.on('error', () => {});
      // Eris's `shardReady` and `ready` do not tell READY from RESUMED: count the dispatches.
      b.on('rawWS', (packet) => {
        if (packet.t === 'READY') readies++;
      });
      b.on('shardResume', () => kit.done('resumed'));
      b.on('messageCreate', async (message) => {
        if (message.author.bot || message.content !== '!info' || !message.member) return;
        try {
          const member = message.member;
          const send = member.permissions.has('sendMessages');
          const reply = await b.createMessage(message.channel.id, {
            embeds: [{ title: 'info', description: `roles ${member.roles.join(',')}; send ${send}` }],
            messageReference: { messageID: message.id },
          });
          kit.done('info', {
            messageId: reply.id,
            roles: member.roles,
            send,
            manageGuild: member.permissions.has('manageGuild'),
            me: member.guild.members.get(b.user.id)?.roles ?? [],
          });
        } catch (err) {
          kit.fail(err);
        }
      });
      b.on('interactionCreate', async (i) => {
        try {
          if (i instanceof CommandInteraction && i.data.name === 'config') {
            const sub = i.data.options?.[0];
            if (sub?.name === 'reset') {
              await i.createModal({
                title: 'Reset settings',
                custom_id: MODAL_ID,
                components: [
                  {
                    type: Constants.ComponentTypes.ACTION_ROW,
                    components: [
                      {
                        type: Constants.ComponentTypes.TEXT_INPUT,
                        custom_id: TEXT_ID,
                        label: 'Type RESET',
                        style: Constants.TextInputStyles.SHORT,
                        required: true,
                        min_length: 5,
                        max_length: 5,
                      },
                    ],
                  },
                ],
              });
              kit.done('modalShown');
              return;
            }
            const what = sub && 'options' in sub ? (sub.options?.find((o) => o.name === 'what') as { value?: string })?.value : undefined;
            await i.createMessage({
              content: sub?.name === 'show' ? `show ${what}` : 'reset',
              components: [
                {
                  type: Constants.ComponentTypes.ACTION_ROW,
                  components: [
                    { type: Constants.ComponentTypes.BUTTON, custom_id: BUTTON_ID, label: 'Press', style: Constants.ButtonStyles.PRIMARY },
                  ],
                },
              ],
            });
            kit.done('command', { sub: sub?.name, what });
          } else if (i instanceof ComponentInteraction && i.data.custom_id === BUTTON_ID) {
            await i.editParent({ content: 'pressed', components: [] });
            kit.done('button', { customId: i.data.custom_id, messageId: i.message.id });
          } else if (i instanceof ModalSubmitInteraction && i.data.custom_id === MODAL_ID) {
            const value = i.data.components.flatMap((r) => r.components).find((c) => c.custom_id === TEXT_ID)?.value;
            await i.createMessage({ content: `reset ${value}` });
            kit.done('modal', { customId: i.data.custom_id, value });
          }
        } catch (err) {
          kit.fail(err);
        }
      });
      const ready = new Promise<void>((resolve) => b.once('ready', () => resolve()));
      await b.connect();
      await ready;
    },
    seen: () => ({ userId: bot?.user?.id, guildIds: [...(bot?.guilds.keys() ?? [])].map(String) }),
    readies: () => readies,
    async registerCommands() {
      const set = await bot!.bulkEditCommands([{ ...CONFIG_COMMAND, type: Constants.ApplicationCommandTypes.CHAT_INPUT }] as never);
      return set.map((c) => c.name);
    },
    async stop() {
      bot?.disconnect({ reconnect: false });
    },
  };
}

libraryScenario('Eris', erisBot, { front: tlsFront });
