import {
  ALL_PERMISSION_BITS,
  DEFAULT_EVERYONE_PERMISSIONS,
  LEGACY_PERMISSIONS,
  type OverwriteBits,
  P,
  type PermissionInput,
  type RoleBits,
  bitsOfNames,
  computePermissions,
  legacyNamesOf,
  parsePermissions,
  threadPermissions,
} from '@parley/protocol';
import { describe, expect, it } from 'vitest';
import { type ModelSnapshot, ServerModel } from '../../src/domain/permissions.js';

/**
 * The one permission rule (docs/permissions.md, Discord's order of evaluation), table-driven:
 * each row is a server, a member and optionally a channel's overwrites, and the bits they
 * must come to.
 */

const SERVER = '100';
const OWNER = '1';
const ME = '2';
const role = (id: string, permissions: bigint, position: number): RoleBits => ({ id, permissions, position });
const ow = (id: string, type: 'role' | 'member', allow: bigint, deny: bigint): OverwriteBits => ({ id, type, allow, deny });

const ROLES = new Map<string, RoleBits>([
  [SERVER, role(SERVER, DEFAULT_EVERYONE_PERMISSIONS, 0)],
  ['10', role('10', P.KICK_MEMBERS | P.MANAGE_MESSAGES, 1)],
  ['11', role('11', P.ADMINISTRATOR, 2)],
  ['12', role('12', P.MANAGE_ROLES, 3)],
]);

function input(over: Partial<PermissionInput>): PermissionInput {
  return { serverId: SERVER, ownerId: OWNER, userId: ME, bot: false, roles: ROLES, memberRoles: [], ...over };
}

const ROWS: Array<[name: string, over: Partial<PermissionInput>, expected: bigint]> = [
  ['a plain member holds @everyone', {}, DEFAULT_EVERYONE_PERMISSIONS],
  ['roles add to @everyone', { memberRoles: ['10'] }, DEFAULT_EVERYONE_PERMISSIONS | P.KICK_MEMBERS | P.MANAGE_MESSAGES],
  ['an unknown role id grants nothing', { memberRoles: ['999'] }, DEFAULT_EVERYONE_PERMISSIONS],
  ['the owner holds everything, with no roles', { userId: OWNER }, ALL_PERMISSION_BITS],
  [
    'the owner holds everything even where an overwrite denies them',
    { userId: OWNER, overwrites: [ow(OWNER, 'member', 0n, ALL_PERMISSION_BITS)] },
    ALL_PERMISSION_BITS,
  ],
  ['ADMINISTRATOR holds everything', { memberRoles: ['11'] }, ALL_PERMISSION_BITS],
  [
    'ADMINISTRATOR ignores a channel that denies @everyone and the member',
    { memberRoles: ['11'], overwrites: [ow(SERVER, 'role', 0n, P.VIEW_CHANNEL), ow(ME, 'member', 0n, P.VIEW_CHANNEL)] },
    ALL_PERMISSION_BITS,
  ],
  ['a private channel: @everyone denied VIEW_CHANNEL leaves nothing', { overwrites: [ow(SERVER, 'role', 0n, P.VIEW_CHANNEL)] }, 0n],
  [
    'a role allowed in a private channel sees it',
    { memberRoles: ['10'], overwrites: [ow(SERVER, 'role', 0n, P.VIEW_CHANNEL), ow('10', 'role', P.VIEW_CHANNEL, 0n)] },
    DEFAULT_EVERYONE_PERMISSIONS | P.KICK_MEMBERS | P.MANAGE_MESSAGES,
  ],
  [
    "a role's allow beats @everyone's deny; the member's own deny beats the role's allow",
    {
      memberRoles: ['10'],
      overwrites: [ow(SERVER, 'role', 0n, P.SEND_MESSAGES), ow('10', 'role', P.SEND_MESSAGES, 0n), ow(ME, 'member', 0n, P.SEND_MESSAGES)],
    },
    // SEND_MESSAGES_IN_THREADS still holds: files and links stay, for the channel's threads.
    (DEFAULT_EVERYONE_PERMISSIONS | P.KICK_MEMBERS | P.MANAGE_MESSAGES) & ~P.SEND_MESSAGES,
  ],
  [
    "the member's allow beats a role's deny",
    { memberRoles: ['10'], overwrites: [ow('10', 'role', 0n, P.ADD_REACTIONS), ow(ME, 'member', P.ADD_REACTIONS, 0n)] },
    DEFAULT_EVERYONE_PERMISSIONS | P.KICK_MEMBERS | P.MANAGE_MESSAGES,
  ],
  [
    "among roles, an allow wins over another role's deny",
    {
      memberRoles: ['10', '12'],
      overwrites: [ow('10', 'role', 0n, P.ADD_REACTIONS), ow('12', 'role', P.ADD_REACTIONS, 0n)],
    },
    DEFAULT_EVERYONE_PERMISSIONS | P.KICK_MEMBERS | P.MANAGE_MESSAGES | P.MANAGE_ROLES,
  ],
  [
    "another member's overwrite and a role the member lacks change nothing",
    { overwrites: [ow('3', 'member', 0n, P.VIEW_CHANNEL), ow('12', 'role', 0n, P.VIEW_CHANNEL)] },
    DEFAULT_EVERYONE_PERMISSIONS,
  ],
  [
    'without SEND_MESSAGES nor SEND_MESSAGES_IN_THREADS, nothing only sending uses',
    { overwrites: [ow(SERVER, 'role', P.MENTION_EVERYONE, P.SEND_MESSAGES | P.SEND_MESSAGES_IN_THREADS)] },
    DEFAULT_EVERYONE_PERMISSIONS & ~(P.SEND_MESSAGES | P.SEND_MESSAGES_IN_THREADS | P.EMBED_LINKS | P.ATTACH_FILES),
  ],
  [
    'an overwrite cannot grant a server-wide permission',
    { overwrites: [ow(SERVER, 'role', P.ADMINISTRATOR | P.BAN_MEMBERS, 0n)] },
    DEFAULT_EVERYONE_PERMISSIONS,
  ],
  ["a bot holds its roles, not @everyone's base", { bot: true, memberRoles: ['10'] }, P.KICK_MEMBERS | P.MANAGE_MESSAGES],
  [
    "a bot takes @everyone's overwrite denies but not its allows",
    {
      bot: true,
      memberRoles: ['20'],
      roles: new Map([...ROLES, ['20', role('20', LEGACY_PERMISSIONS.READ_MESSAGES | LEGACY_PERMISSIONS.SEND_MESSAGES, 4)]]),
      overwrites: [ow(SERVER, 'role', P.ADD_REACTIONS, P.SEND_MESSAGES)],
    },
    P.VIEW_CHANNEL | P.READ_MESSAGE_HISTORY,
  ],
];

describe('computePermissions', () => {
  for (const [name, over, expected] of ROWS) {
    it(name, () => {
      expect(computePermissions(input(over)).toString(2)).toBe(expected.toString(2));
    });
  }
});

describe('section 3 names and bitfields', () => {
  it("each of section 3's names stands for its bits, with VIEW_CHANNEL", () => {
    expect(bitsOfNames(['READ_MESSAGES'])).toBe(P.VIEW_CHANNEL | P.READ_MESSAGE_HISTORY);
    expect(bitsOfNames(['SEND_MESSAGES'])).toBe(P.VIEW_CHANNEL | P.SEND_MESSAGES);
    expect(legacyNamesOf(bitsOfNames(['SEND_MESSAGES', 'ATTACH_FILES']))).toEqual(['SEND_MESSAGES', 'ATTACH_FILES']);
    expect(legacyNamesOf(P.VIEW_CHANNEL)).toEqual([]);
  });

  it('parses decimal bitfields and refuses anything else', () => {
    expect(parsePermissions('0')).toBe(0n);
    expect(parsePermissions(String(1n << 31n))).toBe(P.USE_APPLICATION_COMMANDS);
    for (const bad of ['', '-1', '1.5', '0x10', ' 1', '01', 'abc', '99999999999999999999999'])
      expect(parsePermissions(bad), bad).toBeNull();
  });

  it("Discord's bit positions", () => {
    expect(P.ADMINISTRATOR).toBe(8n);
    expect(P.VIEW_CHANNEL).toBe(1024n);
    expect(P.MANAGE_ROLES).toBe(1n << 28n);
    expect(P.CHANGE_NICKNAME).toBe(1n << 26n);
    expect(P.MANAGE_NICKNAMES).toBe(1n << 27n);
    expect(P.MANAGE_THREADS).toBe(1n << 34n);
    expect(P.CREATE_PUBLIC_THREADS).toBe(1n << 35n);
    expect(P.CREATE_PRIVATE_THREADS).toBe(1n << 36n);
    expect(P.SEND_MESSAGES_IN_THREADS).toBe(1n << 38n);
    // Discord's default @everyone, threads included (docs/permissions.md#the-bits).
    expect(DEFAULT_EVERYONE_PERMISSIONS.toString()).toBe('380171832385');
  });
});

/** A thread's permissions from its parent's (docs/threads.md#permissions), table-driven. */
describe('threadPermissions', () => {
  const SEE = P.VIEW_CHANNEL | P.READ_MESSAGE_HISTORY;
  const open = { private: false, locked: false, member: false };
  const rows: Array<[name: string, parent: bigint, thread: typeof open, expected: bigint]> = [
    ['nothing without VIEW_CHANNEL in the parent', P.SEND_MESSAGES_IN_THREADS | P.MANAGE_THREADS, open, 0n],
    ['posting is SEND_MESSAGES_IN_THREADS, not SEND_MESSAGES', SEE | P.SEND_MESSAGES, open, SEE],
    [
      'a parent closed to posts still takes them in its threads, files and links too',
      SEE | P.SEND_MESSAGES_IN_THREADS | P.ATTACH_FILES | P.EMBED_LINKS,
      open,
      SEE | P.SEND_MESSAGES_IN_THREADS | P.SEND_MESSAGES | P.ATTACH_FILES | P.EMBED_LINKS,
    ],
    [
      'no thread inside a thread',
      SEE | P.SEND_MESSAGES_IN_THREADS | P.CREATE_PUBLIC_THREADS | P.CREATE_PRIVATE_THREADS,
      open,
      SEE | P.SEND_MESSAGES_IN_THREADS | P.SEND_MESSAGES,
    ],
    ['a private thread is nothing to someone outside it', SEE | P.SEND_MESSAGES_IN_THREADS, { ...open, private: true }, 0n],
    [
      'a private thread to its member',
      SEE | P.SEND_MESSAGES_IN_THREADS,
      { ...open, private: true, member: true },
      SEE | P.SEND_MESSAGES_IN_THREADS | P.SEND_MESSAGES,
    ],
    ['a private thread to MANAGE_THREADS, joined or not', SEE | P.MANAGE_THREADS, { ...open, private: true }, SEE | P.MANAGE_THREADS],
    [
      'a locked thread takes no posts from a member without MANAGE_THREADS, nor files',
      SEE | P.SEND_MESSAGES_IN_THREADS | P.ATTACH_FILES,
      { ...open, locked: true, member: true },
      SEE,
    ],
    [
      'a locked thread takes posts from MANAGE_THREADS',
      SEE | P.SEND_MESSAGES_IN_THREADS | P.MANAGE_THREADS,
      { ...open, locked: true },
      SEE | P.SEND_MESSAGES_IN_THREADS | P.MANAGE_THREADS | P.SEND_MESSAGES,
    ],
  ];
  for (const [name, parent, thread, expected] of rows) {
    it(name, () => {
      expect(threadPermissions(parent, thread).toString(2)).toBe(expected.toString(2));
    });
  }

  it('a parent that denies SEND_MESSAGES but allows SEND_MESSAGES_IN_THREADS keeps files for its threads (computePermissions)', () => {
    const parent = computePermissions(input({ overwrites: [ow(SERVER, 'role', 0n, P.SEND_MESSAGES)] }));
    expect(parent & P.SEND_MESSAGES).toBe(0n);
    expect(threadPermissions(parent, { private: false, locked: false, member: false }) & (P.SEND_MESSAGES | P.ATTACH_FILES)).toBe(
      P.SEND_MESSAGES | P.ATTACH_FILES,
    );
  });
});

/**
 * Gateway sessions share one loaded `ServerModel` per server when it says exactly what the
 * store says (`matches`); any difference must build a model of its own, or a session would
 * filter events with another state's permissions.
 */
describe('ServerModel.matches', () => {
  const base = (): ModelSnapshot => ({
    serverId: SERVER,
    ownerId: OWNER,
    version: 3,
    roles: [
      [SERVER, '1024', 0],
      ['10', '8', 1],
    ],
    overwrites: [['20', '10', 'role', '1024', '0']],
    channels: [
      {
        id: '20',
        serverId: SERVER,
        name: 'general',
        createdAt: '2026-11-25T00:00:00.000Z',
        topic: null,
        position: 0,
        type: 'text',
        parentId: null,
      },
    ],
  });
  const model = ServerModel.fromSnapshot(base());

  it('holds for the same state, in any order', () => {
    const s = base();
    s.roles.reverse();
    expect(model.matches(s)).toBe(true);
  });

  const changes: Array<[string, (s: ModelSnapshot) => void]> = [
    ['another server', (s) => (s.serverId = '101')],
    ['another owner', (s) => (s.ownerId = '9')],
    ['another version', (s) => (s.version = 4)],
    ['a role added', (s) => s.roles.push(['11', '0', 2])],
    ['a role removed', (s) => s.roles.pop()],
    ["a role's permissions", (s) => (s.roles[1]![1] = '16')],
    ["a role's position", (s) => (s.roles[1]![2] = 5)],
    ['an overwrite added', (s) => s.overwrites.push(['20', ME, 'member', '0', '1024'])],
    ['an overwrite removed', (s) => s.overwrites.pop()],
    ["an overwrite's deny", (s) => (s.overwrites[0]![4] = '2048')],
    ["an overwrite's type", (s) => (s.overwrites[0]![2] = 'member')],
    ['a channel added', (s) => s.channels!.push({ ...s.channels![0]!, id: '21', name: 'random' })],
    ['a channel removed', (s) => s.channels!.pop()],
    ['a channel renamed', (s) => (s.channels![0]!.name = 'lobby')],
    ["a channel's topic", (s) => (s.channels![0]!.topic = 'hi')],
    ['a channel moved', (s) => (s.channels![0]!.position = 2)],
  ];
  it.each(changes)('fails for %s', (_name, change) => {
    const s = base();
    change(s);
    expect(model.matches(s)).toBe(false);
  });
});
