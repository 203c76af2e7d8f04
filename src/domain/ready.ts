import { P } from '@parley/protocol';
import type { Channel, DmChannel, PresenceStatus, PublicUser, ReadState, Role, Server } from '@parley/protocol';
import { publicUser } from './accounts.js';
import type { DomainContext } from './context.js';
import { readStatesOf } from './conversations.js';
import { directMessages } from './direct-messages.js';
import { type ModelSnapshot, ServerModel, mayReadHistory } from './permissions.js';
import { roleView, snapshotIn } from './roles.js';
import { serverView } from './servers.js';
import type { ThreadRow } from '../store/repos/threads.js';
import type { ThreadMemberTable } from '../store/schema.js';
import { type ThreadView, threadView } from './threads.js';
import type { Caller } from './types.js';
import { channelOf, visibleChannels } from './visible-channels.js';

/**
 * A gateway session's starting snapshot (Zulip's `fetch_initial_state_data`): what the
 * identity sees when it identifies, read once, typed, and written by each wire its own way
 * (docs/gateway.md#connecting-hello-identify-ready). Every event after it builds on it.
 */
export interface ReadyState {
  servers: ReadyServer[];
  /** Read states of the channels the identity may read (docs/api.md#messages). */
  readStates: ReadState[];
  /** Its DMs and groups, newest first. */
  privateChannels: DmChannel[];
}

/** One server of the snapshot, as the identity sees it. */
export interface ReadyServer {
  server: Server;
  /** The server's permission model: the session's view of it starts here. */
  model: ServerModel;
  roles: Role[];
  /** The identity's roles there, ascending. */
  memberRoles: readonly string[];
  /** The channels it may see, in order, with their newest message where it may read the history (else null). */
  channels: Array<Channel & { lastMessageId: string | null }>;
  /** Its server-wide permissions there (a bitfield, in decimal). */
  permissions: string;
  /** The active threads it may see (`threadPermissions`), each with its own membership (`member`) where it joined. */
  threads: ThreadView[];
  /** Present when asked for (`ReadyOptions.members`). */
  members?: ReadyMembers;
}

/** A server's members in the snapshot: bounded, as Discord bounds GUILD_CREATE (docs/discord.md#gateway). */
export interface ReadyMembers {
  count: number;
  /** More members than the threshold asked for: `list` holds the identity's own member alone. */
  large: boolean;
  /** When the identity joined. */
  joinedAt: string;
  /** Every member of a server that is not large (when lists are wanted); the identity's own otherwise. */
  list: ReadyMember[];
}

export interface ReadyMember {
  user: PublicUser;
  roles: string[];
  joinedAt: string;
  nick: string | null;
  presence: PresenceStatus;
}

export interface ReadyOptions {
  /**
   * Members of each server, for protocols whose snapshot carries them (Discord's GUILD_CREATE;
   * the native `ready` does not): the whole list of servers with at most `largeThreshold`
   * members, only the identity's own in larger ones (members come on request then: op 8).
   */
  members?: {
    largeThreshold: number;
    /** Whether the lists of servers that are not large are wanted (else only the identity's own member, and no list is read). */
    lists: boolean;
  };
  /** The model for a server's snapshot (the gateway shares one per server among its sessions). */
  model?: (snapshot: ModelSnapshot) => ServerModel;
}

/** The snapshot of `caller`'s servers, channels, read states and DMs (see `ReadyState`). */
export async function readyState(ctx: DomainContext, caller: Caller, opts: ReadyOptions = {}): Promise<ReadyState> {
  const db = ctx.store.db;
  const rows = await ctx.store.servers.ofMember(db, caller.id);
  const ids = rows.map((s) => s.id);
  const toModel = opts.model ?? ((s: ModelSnapshot) => ServerModel.fromSnapshot(s));
  const [models, roles] = await Promise.all([
    Promise.all(ids.map(async (id) => toModel(await snapshotIn(ctx, db, id)))),
    ctx.store.ready.rolesOf(db, ids),
  ]);
  // What each server shows: its visible channels, with their newest message and how far
  // the identity has read them (docs/api.md#messages) where it may read them: where a history
  // ends, and who pinged whom in it, are part of it.
  const visible = rows.map((s, i) => visibleChannels(models[i]!, caller, s.roles).map((c) => ({ id: c.id, roles: s.roles })));
  const [privateChannels, threads] = await Promise.all([directMessages.list(ctx, caller.id), activeThreads(ctx, caller, rows, models)]);
  const readable = visible.flatMap((list, i) =>
    list.filter((c) => mayReadHistory(models[i]!.permissions(caller.id, caller.bot, c.roles, c.id))),
  );
  const lastIds = await ctx.store.messages.lastIds(db, [
    ...readable.map((c) => c.id),
    ...[...threads.values()].flatMap((list) => list.map((t) => t.row.id)),
  ]);
  for (const dm of privateChannels) if (dm.lastMessageId) lastIds.set(dm.id, dm.lastMessageId);
  const readStates = await readStatesOf(
    ctx,
    caller.id,
    [...readable, ...privateChannels.map((c) => ({ id: c.id, roles: null, dm: true }))],
    lastIds,
  );
  const members = opts.members ? await membersOf(ctx, caller, rows, opts.members) : undefined;
  return {
    servers: rows.map((s, i) => {
      const model = models[i]!;
      return {
        server: serverView(s),
        model,
        channels: visible[i]!.map((c) => ({ ...channelOf(model, c.id)!, lastMessageId: lastIds.get(c.id) ?? null })),
        roles: roles.filter((r) => r.serverId === s.id).map(roleView),
        memberRoles: s.roles,
        permissions: model.permissions(caller.id, caller.bot, s.roles).toString(),
        threads: (threads.get(s.id) ?? []).map((t) => threadView(t.row, lastIds.get(t.row.id) ?? null, t.member)),
        ...(members ? { members: members.get(s.id)! } : {}),
      };
    }),
    readStates,
    privateChannels,
  };
}

/**
 * The active threads of the identity's servers that it may see (docs/threads.md#events): one
 * read for every server's, one for its memberships among them, filtered by the one
 * permission function in each server's model.
 */
async function activeThreads(
  ctx: DomainContext,
  caller: Caller,
  servers: ReadonlyArray<{ id: string; roles: readonly string[] }>,
  models: readonly ServerModel[],
) {
  const db = ctx.store.db;
  const rows = await ctx.store.threads.activeOfServers(
    db,
    servers.map((s) => s.id),
  );
  const mine = new Map(
    (
      await ctx.store.threadMembers.ofUser(
        db,
        caller.id,
        rows.map((r) => r.id),
      )
    ).map((m) => [m.threadId, m]),
  );
  const at = new Map(servers.map((s, i) => [s.id, { roles: s.roles, model: models[i]! }]));
  const out = new Map<string, Array<{ row: ThreadRow; member?: ThreadMemberTable }>>();
  for (const row of rows) {
    const s = at.get(row.serverId);
    if (!s) continue;
    const member = mine.get(row.id);
    const bits = s.model.threadPermissions(caller.id, caller.bot, s.roles, row.parentId, {
      private: row.type === 'private_thread',
      locked: row.locked === 1,
      member: member !== undefined,
    });
    if ((bits & P.VIEW_CHANNEL) === 0n) continue;
    let list = out.get(row.serverId);
    if (!list) out.set(row.serverId, (list = []));
    list.push({ row, ...(member ? { member } : {}) });
  }
  return out;
}

/**
 * The members of `serverIds` as the snapshot lists them: one count query for all, one
 * member list per server of at most `largeThreshold` members, and the identity's own
 * membership; a large server costs no list at all.
 */
async function membersOf(
  ctx: DomainContext,
  caller: Caller,
  servers: ReadonlyArray<{ id: string; createdAt: string; roles: readonly string[] }>,
  want: { largeThreshold: number; lists: boolean },
): Promise<Map<string, ReadyMembers>> {
  const db = ctx.store.db;
  const ids = servers.map((s) => s.id);
  const [counts, memberships] = await Promise.all([ctx.store.members.counts(db, ids), ctx.store.ready.membershipsOf(db, caller.id)]);
  const own = new Map(memberships.map((m) => [String(m.serverId), m]));
  const large = (id: string) => (counts.get(id) ?? 0) > want.largeThreshold;
  const small = want.lists ? ids.filter((id) => !large(id)) : [];
  const lists = new Map(await Promise.all(small.map(async (id) => [id, await ctx.store.members.ofServer(db, id)] as const)));
  const presence = await ctx.presence?.statuses([...new Set([...lists.values()].flatMap((rows) => rows.map((r) => r.id)))]);
  const out = new Map<string, ReadyMembers>();
  for (const s of servers) {
    const mine = own.get(s.id);
    const joinedAt = mine?.joinedAt ?? s.createdAt;
    const rows = lists.get(s.id);
    const list: ReadyMember[] = rows
      ? rows.map((r) => ({
          user: publicUser(r),
          roles: [...r.roles],
          joinedAt: r.joinedAt,
          nick: r.nick ?? null,
          presence: presence?.get(r.id) ?? 'offline',
        }))
      : [{ user: callerUser(caller), roles: [...s.roles], joinedAt, nick: mine?.nick ?? null, presence: 'offline' }];
    out.set(s.id, { count: counts.get(s.id) ?? 0, large: large(s.id), joinedAt, list });
  }
  return out;
}

function callerUser(caller: Caller): PublicUser {
  return { id: caller.id, name: caller.name, bot: caller.bot, avatar: caller.avatar };
}
