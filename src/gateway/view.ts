import { P } from '@parley/protocol';
import { type ModelSnapshot, ServerModel, roleSet, sameRoles, visibilityOf } from '../domain/permissions.js';
import type { Caller } from '../domain/types.js';
import { channelOf, visibleChannels } from '../domain/visible-channels.js';
import type { LogPosition } from '../events/bus.js';
import type { BusEntry, GatewayEvent, JoinSnapshot, ThreadAudience } from '../events/types.js';

/**
 * What a session sees: its view of each server (the server's permission model and its own
 * roles), and how each log entry changes that view and what it sends. Pure: no sockets, no
 * store; the gateway (`gateway.ts`) applies it live and on replay alike, so a resume numbers
 * events as the live session did (docs/gateway.md#sequence-numbers-and-resume).
 */

/** A session's view of one server: the server's model (roles, overwrites, channels) and its own roles. */
export interface View {
  model: ServerModel;
  /** The member's role ids, ascending. */
  roles: readonly string[];
}

/** A server entry of the log. */
export type ServerEntry = Extract<BusEntry, { kind: 'event' }>;

/** What one server entry does to a session (`step`). */
export interface Step {
  /** The view after the entry: set before anything is sent (a wire may read it). */
  after: View;
  /** The entry made the session a member (its own MEMBER_ADD). */
  joined: boolean;
  /** The entry ends the session's view of the server (its own MEMBER_REMOVE, SERVER_DELETE): after delivering. */
  leaving: boolean;
  /** Whether the entry's own event is sent (`mayReceive`). */
  sendsEvent: boolean;
  /** After it: the channels the change hid (CHANNEL_DELETE), then those it showed (CHANNEL_CREATE). */
  notices: GatewayEvent[];
  /**
   * Channels whose threads the change opened to the session: those it showed, and those it
   * already saw where it gained MANAGE_THREADS (their private threads). The gateway sends
   * their active threads (THREAD_LIST_SYNC, docs/threads.md#events).
   */
  threadsOpened: readonly string[];
  /** The session's membership or permissions changed: a resume point follows the entry. */
  marks: boolean;
}

/**
 * The one rule of who gets what. First the entry updates the session's view of its server:
 * a MEMBER_ADD of its own user joins it (with the entry's model); a delta changes the
 * model; channel events add, change or remove the channel; a
 * MEMBER_UPDATE of its own user sets its roles. Then the event is sent if the session may
 * see it (`permissions.visibilityOf`: VIEW_CHANNEL in the event's channel, a server-wide
 * permission, or membership), and the channels a change of permissions showed or hid
 * arrive as CHANNEL_CREATE or CHANNEL_DELETE. A MEMBER_REMOVE of its own user, or
 * SERVER_DELETE, leaves the server after delivering the notice. Null: the entry is about a
 * server the session is not in (and does not make it join).
 */
export function step(servers: ReadonlyMap<string, View>, me: Caller, entry: ServerEntry): Step | null {
  const { event, serverId } = entry;
  const self = (event.t === 'MEMBER_ADD' || event.t === 'MEMBER_UPDATE' || event.t === 'MEMBER_REMOVE') && event.d.user.id === me.id;
  let before = servers.get(serverId);
  let joined = false;
  if (!before) {
    if (!(self && event.t === 'MEMBER_ADD' && entry.model)) return null;
    // Joining: the entry carries the server's model.
    joined = true;
    before = { model: modelOf(entry.model, entry.join), roles: [] };
  }
  const after = nextView(before, entry, self);
  // A deleted channel's notice goes to those who could see it; everything else is judged by the view after.
  const judge = event.t === 'CHANNEL_DELETE' ? before : after;
  const channelEvent = event.t === 'CHANNEL_CREATE' || event.t === 'CHANNEL_UPDATE' || event.t === 'CHANNEL_DELETE';
  // Leaving the server ends the view: what the change behind it would show or hide is moot.
  const leaving = (self && event.t === 'MEMBER_REMOVE') || event.t === 'SERVER_DELETE';
  const permissionsChanged =
    !joined && !leaving && !channelEvent && (after.model !== before.model || !sameRoles(after.roles, before.roles));
  const shown = joined || !permissionsChanged ? null : visibilityChanges(before, after, me);
  const overwritten = event.t === 'CHANNEL_UPDATE' && before.model !== after.model ? visibilityChanges(before, after, me) : null;
  const changes = shown ?? overwritten;
  const skipEvent =
    event.t === 'CHANNEL_UPDATE' && changes !== null && (changes.gained.includes(event.d.id) || changes.lost.includes(event.d.id));
  const threadsOpened = changes ? [...changes.gained, ...changes.managed] : NONE;
  const notices: GatewayEvent[] = [];
  if (changes) {
    for (const id of changes.lost) {
      const c = channelOf(before.model, id);
      if (c) notices.push({ t: 'CHANNEL_DELETE', d: c });
    }
    for (const id of changes.gained) {
      const c = channelOf(after.model, id);
      if (c) notices.push({ t: 'CHANNEL_CREATE', d: c });
    }
  }
  return {
    after,
    joined,
    leaving,
    sendsEvent: !skipEvent && mayReceive(judge, me, event, entry.thread),
    notices,
    threadsOpened,
    marks: self || permissionsChanged,
  };
}

/** No channel (shared: `step` runs per session per entry). */
const NONE: readonly string[] = [];

/** Whether a `user` entry is for a session of `me` with `servers`: its own, or a member of one of its servers who may see it. */
export function concerns(me: Caller, servers: ReadonlyMap<string, View>, entry: Extract<BusEntry, { kind: 'user' }>): boolean {
  if (me.id === entry.userId) return entry.toSelf !== false;
  // A name and avatar are what the member list shows: membership is enough (`visibilityOf`).
  return entry.serverIds.some((id) => servers.has(id));
}

/**
 * Whether a session with `view` may receive `event` (`permissions.visibilityOf`). An event of
 * a thread (`thread`) is judged by the thread's permissions: its parent's, as the thread's
 * kind leaves them; a private thread's reach its members only, and its own lifecycle events
 * (`moderators`) those with MANAGE_THREADS in the parent too; `to` narrows an event to some
 * people's sessions (docs/threads.md#events).
 */
export function mayReceive(view: View, caller: Caller, event: GatewayEvent, thread?: ThreadAudience): boolean {
  const needed = visibilityOf(event);
  if (needed === null) return true;
  if (thread && 'channel' in needed) {
    if (thread.to && !thread.to.includes(caller.id)) return false;
    const member = thread.private ? (thread.members?.includes(caller.id) ?? false) : false;
    // A moderator who did not join a private thread hears of its lifecycle, not its content (`moderators`).
    if (thread.private && !member && !thread.moderators) return false;
    const bits = view.model.threadPermissions(caller.id, caller.bot, view.roles, thread.parentId, {
      private: thread.private,
      locked: false,
      member,
    });
    return (bits & needed.needs) === needed.needs;
  }
  if ('channel' in needed) {
    return (view.model.permissions(caller.id, caller.bot, view.roles, needed.channel) & needed.needs) === needed.needs;
  }
  return (view.model.permissions(caller.id, caller.bot, view.roles) & needed.server) === needed.server;
}

/**
 * The view after `entry`: a delta applied (`ServerModel.withDelta`; every permission change
 * is published as one, docs/permissions.md), a channel added, changed or removed, or the
 * member's new roles. A MEMBER_ADD's model is
 * for the joining member alone (`step`): it changes nothing the members have not had from
 * the entries before it (a bot's managed role comes as its own ROLE_CREATE).
 */
function nextView(view: View, entry: ServerEntry, self: boolean): View {
  const { event } = entry;
  let model = view.model;
  if (entry.delta) {
    let next = model.next.get(entry);
    if (!next) model.next.set(entry, (next = model.withDelta(entry.delta)));
    model = next;
  }
  if (event.t === 'CHANNEL_CREATE' || event.t === 'CHANNEL_UPDATE' || event.t === 'CHANNEL_DELETE') {
    let next = model.next.get(entry);
    if (!next) {
      const d = event.d;
      const info = {
        id: d.id,
        serverId: d.serverId,
        name: d.name,
        createdAt: d.createdAt,
        topic: d.topic ?? null,
        position: d.position ?? 0,
        type: d.type ?? 'text',
        parentId: d.parentId ?? null,
        ...(d.type === 'forum'
          ? {
              availableTags: d.availableTags ?? [],
              defaultAutoArchiveDuration: d.defaultAutoArchiveDuration ?? null,
              defaultSortOrder: d.defaultSortOrder ?? null,
              defaultForumLayout: d.defaultForumLayout ?? 'not_set',
              defaultReactionEmoji: d.defaultReactionEmoji ?? null,
            }
          : {}),
      };
      model.next.set(entry, (next = model.withChannel(d.id, event.t === 'CHANNEL_DELETE' ? null : info)));
    }
    model = next;
  }
  let roles = view.roles;
  if (self && (event.t === 'MEMBER_UPDATE' || event.t === 'MEMBER_ADD')) {
    const given = entry.roles ?? (event.t === 'MEMBER_UPDATE' ? event.d.roles : undefined);
    if (given) roles = roleSet(given);
  }
  return model === view.model && sameRoles(roles, view.roles) ? view : { model, roles };
}

/**
 * Channels that became visible or hidden between two views, and those visible in both where
 * MANAGE_THREADS was gained (`managed`: their private threads opened).
 */
function visibilityChanges(before: View, after: View, caller: Caller): { gained: string[]; lost: string[]; managed: string[] } | null {
  const was = seen(before, caller);
  const now = seen(after, caller);
  const gained = [...now.keys()].filter((id) => !was.has(id));
  const lost = [...was.keys()].filter((id) => !now.has(id) && after.model.channels.has(id));
  const managed = [...now].filter(
    ([id, bits]) => (bits & P.MANAGE_THREADS) !== 0n && ((was.get(id) ?? P.MANAGE_THREADS) & P.MANAGE_THREADS) === 0n,
  );
  return gained.length + lost.length + managed.length === 0 ? null : { gained, lost, managed: managed.map(([id]) => id) };
}

/** The channels a view shows, in order, with the permissions it has in each. */
function seen(view: View, caller: Caller): Map<string, bigint> {
  return new Map(
    visibleChannels(view.model, caller, view.roles).map((c) => [c.id, view.model.permissions(caller.id, caller.bot, view.roles, c.id)]),
  );
}

/**
 * Whether a resume can replay `missed` with the views it rebuilt. Those of `exact` are the
 * models the checkpoint carried, as they stood at its position: every missed entry applies
 * to them as it did live, so they replay whatever changed. The others were read from the
 * store (at the checkpoint's version): not when an entry changed the permissions `userId`
 * has in one of them, nor when a channel that existed at the checkpoint was deleted since.
 * Its overwrites went with it, and no permission version records that, so the model read
 * now cannot judge the missed events of that channel (they would be judged as if it had no
 * overwrites).
 */
export function replayable(
  missed: Array<[LogPosition, BusEntry]>,
  userId: string,
  servers: ReadonlyMap<string, View>,
  exact: ReadonlySet<string>,
): boolean {
  const created = new Set<string>();
  for (const [, e] of missed) {
    if (e.kind === 'event' && exact.has(e.serverId)) continue;
    if (changesPermissionsOf(e, userId, servers)) return false;
    if (e.kind !== 'event' || !servers.has(e.serverId)) continue;
    if (e.event.t === 'CHANNEL_CREATE') created.add(e.event.d.id);
    else if (e.event.t === 'CHANNEL_DELETE' && !created.has(e.event.d.id)) return false;
  }
  return true;
}

/** Whether a missed entry changed the permissions `userId` has in the servers of `servers`. */
function changesPermissionsOf(entry: BusEntry, userId: string, servers: ReadonlyMap<string, View>): boolean {
  if (entry.kind !== 'event' || !servers.has(entry.serverId)) return false;
  const version = servers.get(entry.serverId)!.model.version;
  if (entry.model && entry.model.version !== version) return true;
  if (entry.delta && entry.delta.version !== version) return true;
  const e = entry.event;
  return e.t === 'MEMBER_UPDATE' && e.d.user.id === userId;
}

// ---------------------------------------------------------------- shared models

/**
 * Models made from an entry's snapshot, per snapshot: the sessions a live entry reaches
 * share one. Held weakly: the log keeps its entries (and so their snapshots) long after
 * any session holds the model made from one.
 */
const fromSnapshots = new WeakMap<ModelSnapshot, WeakRef<ServerModel>>();
function modelOf(snapshot: ModelSnapshot, join?: JoinSnapshot): ServerModel {
  let m = fromSnapshots.get(snapshot)?.deref();
  if (!m) {
    // A bot's MEMBER_ADD carries the roles once, in its join snapshot (`BusEntry`).
    const whole =
      join && snapshot.roles.length === 0
        ? { ...snapshot, roles: join.roles.map((r): [string, string, number] => [r.id, r.permissions, r.position]) }
        : snapshot;
    m = ServerModel.fromSnapshot(whole);
    fromSnapshots.set(snapshot, new WeakRef(m));
  }
  return m;
}

/** The snapshot of a model, made once per model (sessions dropping together share it). */
const snapshots = new WeakMap<ServerModel, ModelSnapshot>();
export function snapshotOf(model: ServerModel): ModelSnapshot {
  let s = snapshots.get(model);
  if (!s) snapshots.set(model, (s = model.snapshot()));
  return s;
}

/**
 * A model from a checkpoint (`SessionCheckpoint.models`): in one process the checkpoint holds
 * the snapshot itself, so sessions resuming from the same one share the model made from it.
 */
export function keptModel(snapshot: ModelSnapshot): ServerModel {
  let m = fromSnapshots.get(snapshot)?.deref();
  if (!m) {
    m = ServerModel.fromSnapshot(snapshot);
    fromSnapshots.set(snapshot, new WeakRef(m));
  }
  return m;
}

/**
 * The model last loaded from the store per server, while some session holds it: sessions
 * that identify or resume onto the same state share one model rather than each building
 * its own. A model is as large as the server's roles (one per bot), so a model per session
 * made memory grow with sessions × members.
 */
const loaded = new Map<string, WeakRef<ServerModel>>();
export function loadedModel(snapshot: ModelSnapshot): ServerModel {
  const held = loaded.get(snapshot.serverId)?.deref();
  if (held?.matches(snapshot)) return held;
  const m = ServerModel.fromSnapshot(snapshot);
  loaded.set(snapshot.serverId, new WeakRef(m));
  return m;
}
