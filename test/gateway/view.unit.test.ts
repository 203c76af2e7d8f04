// The gateway's pure view (src/gateway/view.ts): what a session sees of the log, without a
// socket, a store or a bus. The rule the gateway applies live and on replay alike
// (docs/gateway.md#events): an event in a channel reaches those who may read it, and a
// change of roles or overwrites announces the channels it shows or hides.
import { P } from '@parley/protocol';
import { describe, expect, it } from 'vitest';
import { ServerModel } from '../../src/domain/permissions.js';
import type { Caller } from '../../src/domain/types.js';
import type { BusEntry } from '../../src/events/types.js';
import { step, type ServerEntry, type View } from '../../src/gateway/view.js';

const SERVER = '100';
const OPEN = '101';
const STAFF = '102';
const STAFF_ROLE = '110';
const me: Caller = { id: '200', name: 'me', bot: false, avatar: null };
const user = { id: me.id, name: me.name, bot: false, avatar: null };
const channel = (id: string, name: string, position: number) => ({
  id,
  serverId: SERVER,
  name,
  createdAt: '2026-01-01T00:00:00.000Z',
  topic: null,
  position,
  type: 'text' as const,
  parentId: null,
});

/** A server where everyone reads `#open`, and only the staff role sees `#staff`. */
function server(): View {
  const read = (P.VIEW_CHANNEL | P.READ_MESSAGE_HISTORY | P.SEND_MESSAGES).toString();
  const model = ServerModel.fromSnapshot({
    serverId: SERVER,
    ownerId: '300',
    version: 1,
    channels: [channel(OPEN, 'open', 0), channel(STAFF, 'staff', 1)],
    roles: [
      [SERVER, read, 0],
      [STAFF_ROLE, '0', 1],
    ],
    overwrites: [
      [STAFF, SERVER, 'role', '0', P.VIEW_CHANNEL.toString()],
      [STAFF, STAFF_ROLE, 'role', P.VIEW_CHANNEL.toString(), '0'],
    ],
  });
  return { model, roles: [] };
}

const message = (channelId: string): ServerEntry => ({
  kind: 'event',
  serverId: SERVER,
  event: {
    t: 'MESSAGE_CREATE',
    d: {
      id: '400',
      channelId,
      serverId: SERVER,
      author: { id: '300', name: 'owner', bot: false, avatar: null },
      content: 'hi',
      attachments: [],
      embeds: [],
      reactions: [],
      createdAt: '2026-01-01T00:00:00.000Z',
      editedAt: null,
      mentions: [],
      mentionRoles: [],
      mentionEveryone: false,
      pinned: false,
    },
  } as Extract<BusEntry, { kind: 'event' }>['event'],
});

describe('the pure view', () => {
  it('sends a message to a member who may read its channel, not to one it is hidden from', () => {
    const servers = new Map([[SERVER, server()]]);
    expect(step(servers, me, message(OPEN))).toMatchObject({ sendsEvent: true, notices: [], marks: false, leaving: false });
    expect(step(servers, me, message(STAFF))).toMatchObject({ sendsEvent: false, notices: [] });
  });

  it('gives nothing of a server the session is not in, until its own MEMBER_ADD joins it', () => {
    const model = server().model;
    expect(step(new Map(), me, message(OPEN))).toBeNull();
    const joined = step(new Map(), me, {
      kind: 'event',
      serverId: SERVER,
      event: { t: 'MEMBER_ADD', d: { serverId: SERVER, user } },
      model: model.snapshot(),
      roles: [],
    });
    expect(joined).toMatchObject({ joined: true, sendsEvent: true, notices: [], marks: true });
    expect(joined!.after.model.channels.has(OPEN)).toBe(true);
  });

  it('announces the channel a new role shows as CHANNEL_CREATE, and CHANNEL_DELETE when the role goes', () => {
    const servers = new Map([[SERVER, server()]]);
    const given = step(servers, me, {
      kind: 'event',
      serverId: SERVER,
      event: { t: 'MEMBER_UPDATE', d: { serverId: SERVER, user, roles: [STAFF_ROLE] } },
    });
    expect(given).toMatchObject({ sendsEvent: true, marks: true });
    expect(given!.notices).toEqual([
      { t: 'CHANNEL_CREATE', d: expect.objectContaining({ id: STAFF, name: 'staff', permissionOverwrites: expect.any(Array) }) },
    ]);
    expect(given!.after.roles).toEqual([STAFF_ROLE]);
    servers.set(SERVER, given!.after);
    expect(step(servers, me, message(STAFF))!.sendsEvent).toBe(true);
    const taken = step(servers, me, {
      kind: 'event',
      serverId: SERVER,
      event: { t: 'MEMBER_UPDATE', d: { serverId: SERVER, user, roles: [] } },
    });
    expect(taken!.notices.map((n) => [n.t, (n.d as { id: string }).id])).toEqual([['CHANNEL_DELETE', STAFF]]);
  });

  it('leaves the server on its own MEMBER_REMOVE, after the notice', () => {
    const servers = new Map([[SERVER, server()]]);
    const removed = step(servers, me, { kind: 'event', serverId: SERVER, event: { t: 'MEMBER_REMOVE', d: { serverId: SERVER, user } } });
    expect(removed).toMatchObject({ leaving: true, sendsEvent: true, notices: [], marks: true });
    // Another member leaving changes nothing for the session.
    const other = { ...user, id: '201' };
    expect(
      step(servers, me, { kind: 'event', serverId: SERVER, event: { t: 'MEMBER_REMOVE', d: { serverId: SERVER, user: other } } }),
    ).toMatchObject({
      leaving: false,
      marks: false,
    });
  });
});

describe('a thread’s own events (docs/threads.md#events)', () => {
  const THREAD = '500';
  const MOD_ROLE = '111';
  /** `server()` with a moderators' role holding MANAGE_THREADS. */
  function withMods(): View {
    const base = server();
    const model = ServerModel.fromSnapshot({
      ...base.model.snapshot(),
      roles: [...base.model.snapshot().roles, [MOD_ROLE, P.MANAGE_THREADS.toString(), 2]],
    });
    return { model, roles: [] };
  }
  const update = (thread: NonNullable<ServerEntry['thread']>): ServerEntry => ({
    kind: 'event',
    serverId: SERVER,
    thread,
    event: {
      t: 'THREAD_DELETE',
      d: { id: THREAD, serverId: SERVER, parentId: OPEN, type: thread.private ? 'private_thread' : 'public_thread' },
    },
  });
  const sends = (view: View, entry: ServerEntry) => step(new Map([[SERVER, view]]), me, entry)!.sendsEvent;

  it('a private thread’s: to its members and MANAGE_THREADS in the parent, no one else', () => {
    const plain = withMods();
    const mod: View = { ...plain, roles: [MOD_ROLE] };
    const lifecycle = { parentId: OPEN, private: true, members: ['999'], moderators: true };
    expect(sends(plain, update(lifecycle))).toBe(false);
    expect(sends(mod, update(lifecycle))).toBe(true);
    expect(sends(plain, update({ ...lifecycle, members: [me.id] }))).toBe(true);
    // Its content is its members' alone, moderators or not.
    expect(sends(mod, update({ parentId: OPEN, private: true, members: ['999'] }))).toBe(false);
    // Without the parent, nothing, member or not.
    expect(sends(mod, update({ parentId: STAFF, private: true, members: [me.id], moderators: true }))).toBe(false);
  });

  it('`to`: only those people, and only if they may see the thread', () => {
    const plain = withMods();
    expect(sends(plain, update({ parentId: OPEN, private: false, to: ['999'] }))).toBe(false);
    expect(sends(plain, update({ parentId: OPEN, private: false, to: [me.id] }))).toBe(true);
    expect(sends(plain, update({ parentId: STAFF, private: false, to: [me.id] }))).toBe(false);
  });
});
