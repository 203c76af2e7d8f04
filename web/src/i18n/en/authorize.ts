/** English text of the bot invite page (`/oauth2/authorize`); it comes with that page's chunk (see ../index.ts). */
export const authorize = {
  pageTitle: 'Add a bot',
  lookingUp: 'Looking up the bot…',
  kicker: 'A bot wants to join a server',
  addBotTo: 'Add {{bot}} to a server',
  madeBy: 'Made by {{owner}}',
  privateBot: 'Private: only you can add it.',
  server: 'Add to server',
  chooseServer: 'Choose a server',
  ownersOnly: 'Only servers you own are listed: on Parley, adding a bot is the owner’s decision.',
  lockedServer: 'This link names the server; it cannot be changed here.',
  willBeAbleTo: '{{bot}} will be able to:',
  untickHelp: 'Untick anything you do not want to allow. You can change it later in the server’s settings.',
  basic: 'what every member has',
  basicHelp:
    'Items marked “what every member has” are not in the link: on Discord a bot takes them from @everyone, on Parley it holds only what you tick here.',
  adminWarning:
    'Dangerous: Administrator allows everything in every channel, now and later, whatever else you untick. Give it only to a bot you trust as much as yourself.',
  unknownBits_one: 'The link also asks for {{count}} Discord permission Parley does not have; it is left out.',
  unknownBits_other: 'The link also asks for {{count}} Discord permissions Parley does not have; they are left out.',
  nothingTicked: 'With nothing ticked, the bot joins but cannot see any channel.',
  add: 'Add to server',
  adding: 'Adding…',
  cancel: 'Cancel',
  added: '{{bot}} was added to {{server}}',
  addedHelp: 'It can now do what you allowed. Change that any time in the server’s settings, under Roles: the bot has a role of its own.',
  openServer: 'Open {{server}}',
  alreadyIn: '{{bot}} is already in {{server}}. Change what it may do in the server’s settings, under Roles (its own role).',
  noBotTitle: 'This link names no bot',
  noBot:
    'No bot here has the id {{id}}, or it is private and not yours. Check the link with the bot’s developer: on Parley the link’s address must be this Parley’s.',
  noClientId: 'The link has no client_id, so it names no bot. Ask the bot’s developer for the full link.',
  noBotScope: 'This link does not ask to add a bot (its scope has neither “bot” nor “applications.commands”).',
  noServersTitle: 'No server to add it to',
  noServers:
    'You do not own a server here, and on Parley only a server’s owner adds bots. Create a server, or send this link to the owner of the server you have in mind.',
  goToParley: 'Go to Parley',
  inviteLink: 'Invite link',
  inviteLinkFor: 'Invite link for {{bot}}',
  inviteLinkHelp:
    'Anyone who owns a server here can open this link to add {{bot}} (if it is private, only you). Tick what it asks for; the person adding it can untick anything.',
  close: 'Close',
} as const;
