import type { Kysely, Transaction } from 'kysely';
import type { BotKeyTable, CommandTable, Database, InteractionTable } from '../schema.js';

type Db = Kysely<Database>;
/** Writes take the transaction `Store.write` hands out: a plain handle is a type error. */
type Tx = Transaction<Database>;

/** Global commands are stored under server id 0 (no server has it). */
export const GLOBAL_SCOPE = '0';

/** A command with the name and avatar of its bot. */
export type CommandWithBot = CommandTable & { botName: string; botAvatar: string | null };

/** Bots' commands, per bot and scope. */
export const commands = {
  ofScope: (db: Db | Tx, botId: string, serverId: string) =>
    db.selectFrom('commands').selectAll().where('botId', '=', botId).where('serverId', '=', serverId).orderBy('name').execute(),
  /** Replaces the scope's commands with `rows` (ids kept by the caller for names that stay). */
  replaceScope: async (db: Tx, botId: string, serverId: string, rows: CommandTable[]) => {
    await db.deleteFrom('commands').where('botId', '=', botId).where('serverId', '=', serverId).execute();
    if (rows.length > 0) await db.insertInto('commands').values(rows).execute();
  },
  /** The scope's command of that type and name (names are unique per type). */
  byName: (db: Db | Tx, botId: string, serverId: string, type: CommandTable['type'], name: string) =>
    db
      .selectFrom('commands')
      .selectAll()
      .where('botId', '=', botId)
      .where('serverId', '=', serverId)
      .where('type', '=', type)
      .where('name', '=', name)
      .executeTakeFirst(),
  byId: (db: Db | Tx, botId: string, serverId: string, id: string) =>
    db
      .selectFrom('commands')
      .selectAll()
      .where('id', '=', id)
      .where('botId', '=', botId)
      .where('serverId', '=', serverId)
      .executeTakeFirst(),
  /** How many commands of one type the scope holds. */
  countScope: async (db: Tx, botId: string, serverId: string, type: CommandTable['type']) => {
    const r = await db
      .selectFrom('commands')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('botId', '=', botId)
      .where('serverId', '=', serverId)
      .where('type', '=', type)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  },
  insert: (db: Tx, row: CommandTable) => db.insertInto('commands').values(row).execute(),
  /** Rewrites one command's fields (its id, bot and scope stay). */
  update: (db: Tx, row: CommandTable) =>
    db
      .updateTable('commands')
      .set({
        name: row.name,
        description: row.description,
        options: row.options,
        defaultMemberPermissions: row.defaultMemberPermissions,
        nameLocalizations: row.nameLocalizations ?? null,
        descriptionLocalizations: row.descriptionLocalizations ?? null,
        contexts: row.contexts ?? null,
        integrationTypes: row.integrationTypes ?? null,
      })
      .where('id', '=', row.id)
      .where('botId', '=', row.botId)
      .where('serverId', '=', row.serverId)
      .execute(),
  delete: async (db: Tx, botId: string, serverId: string, id: string) => {
    const r = await db
      .deleteFrom('commands')
      .where('id', '=', id)
      .where('botId', '=', botId)
      .where('serverId', '=', serverId)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  },
  /** The command `name` of that type of `botId` usable in a server's channel: the server's own, or else the global one. */
  find: (db: Db, botId: string, serverId: string, type: CommandTable['type'], name: string) =>
    db
      .selectFrom('commands')
      .selectAll()
      .where('botId', '=', botId)
      .where('type', '=', type)
      .where('name', '=', name)
      .where('serverId', 'in', [serverId, GLOBAL_SCOPE])
      .orderBy('serverId', 'desc')
      .executeTakeFirst(),
  /** The commands of the server's bots (members of it), its own and their global ones. */
  ofServerBots: (db: Db, serverId: string): Promise<CommandWithBot[]> =>
    db
      .selectFrom('commands')
      .innerJoin('members', (j) => j.onRef('members.userId', '=', 'commands.botId').on('members.serverId', '=', serverId))
      .innerJoin('users', 'users.id', 'commands.botId')
      .selectAll('commands')
      .select(['users.name as botName', 'users.avatar as botAvatar'])
      .where('commands.serverId', 'in', [serverId, GLOBAL_SCOPE])
      .orderBy('commands.name')
      .execute(),
  /** A bot's global commands, with its name. */
  globalOf: (db: Db, botId: string): Promise<CommandWithBot[]> =>
    db
      .selectFrom('commands')
      .innerJoin('users', 'users.id', 'commands.botId')
      .selectAll('commands')
      .select(['users.name as botName', 'users.avatar as botAvatar'])
      .where('commands.botId', '=', botId)
      .where('commands.serverId', '=', GLOBAL_SCOPE)
      .orderBy('commands.name')
      .execute(),
};

/** Interactions: created when invoked, moved through their states by callbacks. */
export const interactions = {
  insert: (db: Tx, row: InteractionTable) => db.insertInto('interactions').values(row).execute(),
  byId: (db: Db | Tx, id: string) => db.selectFrom('interactions').selectAll().where('id', '=', id).executeTakeFirst(),
  /** The interaction whose ephemeral original is `messageId`. */
  byEphemeralMessage: (db: Db, messageId: string) =>
    db
      .selectFrom('interactions')
      .selectAll()
      .where('originalMessageId', '=', messageId)
      .where('ephemeralMessage', 'is not', null)
      .orderBy('id', 'desc')
      .executeTakeFirst(),
  /** Moves a pending interaction to `state`; false when it was not pending any more (someone else won). */
  settle: async (db: Tx, id: string, state: InteractionTable['state'], changes: Partial<InteractionTable> = {}) => {
    const r = await db
      .updateTable('interactions')
      .set({ ...changes, state })
      .where('id', '=', id)
      .where('state', '=', 'pending')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  },
  /**
   * Takes an acknowledged interaction's modal for its one submit: the modal, or undefined
   * when there is none (any more): a second submit, even a concurrent one, finds it gone.
   */
  takeModal: async (db: Tx, id: string): Promise<string | undefined> => {
    const row = await db.selectFrom('interactions').select('modal').where('id', '=', id).executeTakeFirst();
    if (!row?.modal) return undefined;
    const r = await db
      .updateTable('interactions')
      .set({ modal: null })
      .where('id', '=', id)
      .where('modal', '=', row.modal)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0 ? row.modal : undefined;
  },
  update: (db: Tx, id: string, changes: Partial<Pick<InteractionTable, 'originalMessageId' | 'ephemeralMessage'>>) =>
    db.updateTable('interactions').set(changes).where('id', '=', id).executeTakeFirst(),
  /** Replaces (or, with null, drops) an ephemeral message in every interaction that holds it. */
  setEphemeral: (db: Tx, messageId: string, json: string | null) =>
    db
      .updateTable('interactions')
      .set(json === null ? { ephemeralMessage: null, originalMessageId: null } : { ephemeralMessage: json })
      .where('originalMessageId', '=', messageId)
      .where('ephemeralMessage', 'is not', null)
      .executeTakeFirst(),
  deleteOlderThan: (db: Tx, createdBefore: string) =>
    db.deleteFrom('interactions').where('createdAt', '<', createdBefore).executeTakeFirst(),
};

/** Bots' signing keys. */
export const botKeys = {
  insert: (db: Tx, row: BotKeyTable) =>
    db
      .insertInto('botKeys')
      .values(row)
      .onConflict((oc) => oc.column('botId').doNothing())
      .execute(),
  publicKeys: (db: Db, botIds: string[]) =>
    botIds.length === 0
      ? Promise.resolve([] as Array<Pick<BotKeyTable, 'botId' | 'publicKey'>>)
      : db.selectFrom('botKeys').select(['botId', 'publicKey']).where('botId', 'in', botIds).execute(),
  /** The private key, to sign with: read only for that. */
  signing: (db: Db, botId: string) => db.selectFrom('botKeys').select(['privateKey']).where('botId', '=', botId).executeTakeFirst(),
};
