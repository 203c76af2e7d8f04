/**
 * Generates one bad (or, now and then, valid) request for a route: the path filled with
 * real ids or garbage, a query string, credentials real or broken, headers, and a body
 * that starts from a valid one for the route and is then broken in one or more ways.
 *
 * The vocabulary never contains the words the leak check looks for (stack frames,
 * source paths, error class names), so whatever the server echoes back cannot trip it.
 */
import zlib from 'node:zlib';
import { OBJECT_LIMITS } from '@parley/protocol';
import { type J, entriesOf, flatten, obj, raw, serialize } from './json.js';
import { Rng } from './prng.js';
import type { Route } from './routes.js';
import { type FuzzRequest, fetchCanSend } from './transport.js';
import { EMOJIS, type FuzzWorld, type Scene } from './world.js';

/** Per-request state while generating. */
interface Gen {
  rng: Rng;
  world: FuzzWorld;
  scene: Scene;
  /** A DELETE or a session-ending route: only sacrificial things may be named. */
  destructive: boolean;
  notes: string[];
  /** Something was done that may keep the request from reaching its route. */
  structural: boolean;
}

// ---------------------------------------------------------------------------------------
// Vocabulary

const LONG = (n: number, c = 'x') => c.repeat(n);

const STRINGS: string[] = [
  '',
  ' ',
  '   \t\n  ',
  'a',
  'hello',
  'general',
  '**bold** _it_ `code` [link](https://example.com)',
  LONG(81),
  LONG(101),
  LONG(256),
  LONG(2049),
  LONG(4000),
  LONG(4001),
  '😀'.repeat(4000),
  '😀'.repeat(4001),
  'e\u0301'.repeat(50),
  '\u0000',
  'a\u0000b',
  '\u0007\u001b[31mred',
  '\ud800',
  'x\udfff\ud800y',
  '\u202eevil',
  '\u200b\u200b',
  '\ufeffbom',
  '\u2028\u2029',
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  "' OR '1'='1",
  '"; DROP TABLE users; --',
  "Robert'); DELETE FROM messages;--",
  '${7*7}',
  '{{7*7}}',
  '%s%s%s%n',
  '%00',
  '../../../../etc/passwd',
  'null',
  'undefined',
  'NaN',
  'true',
  '-1',
  '0',
  '1e309',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '@everyone',
  '@me',
  'javascript:alert(1)',
  'data:text/html,<b>x</b>',
  'https://example.com/a.png',
  'http://127.0.0.1:1/x',
  'file:///etc/passwd',
  'ftp://example.com/',
  'https://',
  '😀',
  '👍🏽',
  '🇫🇷',
  '👩‍💻',
  '日本語のテキスト',
  'עברית',
  '\t',
  'READ_MESSAGES',
  'SEND_MESSAGES',
  'ADMINISTRATOR',
  'attachment://a.png',
];

const GARBAGE_IDS = [
  '0',
  '-1',
  '1',
  '00000000000000000000000000',
  '01ARZ3NDEKTSV4RRFFQ69G5FAV',
  '01arz3ndektsv4rrffq69g5fav',
  '7ZZZZZZZZZZZZZZZZZZZZZZZZZ',
  'ZZZZZZZZZZZZZZZZZZZZZZZZZZ',
  'IIIIIIIIIIIIIIIIIIIIIIIIII',
  '01ARZ3NDEKTSV4RRFFQ69G5FA',
  '01ARZ3NDEKTSV4RRFFQ69G5FAVX',
  '9007199254740993',
  '18446744073709551616',
  // Snowflakes: unknown but well-formed, the largest bigint, one past it, a leading zero.
  '1315520512234881024',
  '9223372036854775807',
  '9223372036854775808',
  '01315520512234881024',
  '123456789012345678901234567890',
  'null',
  'undefined',
  '@me',
  'me',
];

/** Path segments as they go on the wire (already percent-encoded where meant to be). */
const GARBAGE_SEGMENTS: Array<[string, boolean]> = [
  // [segment, routes like a normal segment]
  ['0', true],
  ['-1', true],
  ['null', true],
  ['undefined', true],
  ['__proto__', true],
  ['constructor', true],
  ['prototype', true],
  ['hasOwnProperty', true],
  ['%00', true],
  ['a%00b', true],
  ['%2F', true],
  ['a%2Fb', true],
  ['%2e%2e', false],
  ['%2E', false],
  ['..', false],
  ['.', false],
  ['%FF', false],
  ['%C0%AF', false],
  ['%ED%A0%80', false],
  ['%F4%90%80%80', false],
  ['%', false],
  ['%G0', false],
  ['%2', false],
  ['%25', true],
  ['%20', true],
  ['%20%20', true],
  ['+', true],
  ['~', true],
  ['%40me', true],
  ['@me', true],
  ["'", true],
  ['%22', true],
  ['%3Cscript%3E', true],
  ['%F0%9F%91%8D', true],
  ['%F0%9F%91%8D%F0%9F%91%8D', true],
  ['%E2%9D%A4', true],
  ['%F0%9F', false],
  ['a', true],
  ['A'.repeat(100), true],
  ['A'.repeat(101), false],
  ['A'.repeat(5000), false],
  [';', true],
  [':', true],
  ['*', true],
  [',', true],
  ['%3F', true],
  ['%23', true],
  ['%5C', true],
  ['1e309', true],
  ['9007199254740993', true],
  ['18446744073709551616', true],
  ['01ARZ3NDEKTSV4RRFFQ69G5FAV', true],
  ['ZZZZZZZZZZZZZZZZZZZZZZZZZZ', true],
  ['%27%20OR%201%3D1--', true],
];

const UNROUTED_PATHS = [
  '/',
  '/login',
  '/register',
  '/app',
  '/servers/x/y/z',
  '/channels',
  '/channels/x/y',
  '/users',
  '/users/@you',
  '/auth',
  '/api',
  '/api/v10/channels/1/messages',
  '/webhooks',
  '/uploads',
  '/uploads/x',
  '/gateway',
  '/healthz/x',
  '/index.html',
  '/favicon.ico',
  '/assets/nope.js',
  '/assets/..%2F..%2Fpackage.json',
  '/.env',
  '/.git/config',
  '/package.json',
  '/..%2F..%2Fetc%2Fpasswd',
  '/%2e%2e/%2e%2e/etc/passwd',
  '/web/dist/index.html',
  '/robots.txt',
  '/some/deep/client/route',
  '/%F0%9F%98%80',
  '/%FF',
  '/%',
  '/a%00b',
  '/metrics',
  '/readyz',
  '/openapi.json',
  '/docs',
];

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json;charset=utf-16',
  'application/json; charset=latin1',
  'application/json; charset="nope"',
  'application/json ; foo=bar',
  'application/jsonx',
  'application/json, text/plain',
  'application/vnd.api+json',
  'application/ld+json',
  'text/json',
  'text/plain',
  'text/plain; charset=utf-8',
  'text/html',
  'application/xml',
  'application/octet-stream',
  'application/x-www-form-urlencoded',
  'application/x-www-form-urlencoded; charset=utf-8',
  'multipart/form-data',
  'multipart/form-data; boundary=',
  'multipart/form-data; boundary=abc',
  'multipart/mixed; boundary=abc',
  'image/png',
  'application/cbor',
  '*/*',
  'application/*',
  'json',
  ';',
  '',
  '   ',
  'application/json; boundary=x',
];

const ACCEPTS = [
  'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'text/html',
  'application/json',
  '*/*',
  'text/plain',
  'image/*',
  'text/html;q=0',
  'application/json, text/html',
  'garbage;;;q=x',
  '',
];

const FILENAMES = [
  'a.txt',
  'photo.png',
  'report.pdf',
  'index.html',
  'image.svg',
  '',
  '.',
  '..',
  '../../../../var/x',
  '..\\..\\x.txt',
  'a\u0000b.txt',
  `${LONG(300)}.txt`,
  LONG(2000),
  '😀.png',
  'CON',
  'a/b/c.txt',
  '"quoted".txt',
  'new\nline.txt',
  '%00.txt',
  'spaces  in name .txt',
  'é.txt',
];

const FILE_TYPES = [
  'text/plain',
  'image/png',
  'image/svg+xml',
  'text/html',
  'application/octet-stream',
  'application/x-msdownload',
  '',
  'garbage',
  'image/png; charset=utf-8',
];

const GITHUB_EVENTS = [
  'push',
  'pull_request',
  'issues',
  'issue_comment',
  'release',
  'ping',
  'star',
  'unknown',
  '',
  'PUSH',
  'push, ping',
  LONG(300, 'p'),
  '__proto__',
];

// ---------------------------------------------------------------------------------------
// Values

function anyString(g: Gen): string {
  if (g.rng.chance(0.02)) return LONG(70_000, 'y');
  if (g.rng.chance(0.15)) return g.rng.string(g.rng.int(1, 40), 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _-.');
  return g.rng.pick(STRINGS);
}

function anyNumber(g: Gen): J {
  return g.rng.pick<J>([
    0,
    1,
    -1,
    1.5,
    4000,
    4001,
    2 ** 31,
    2 ** 53,
    1e308,
    -1e308,
    raw('-0'),
    raw('1e309'),
    raw('-1e309'),
    raw('9007199254740993'),
    raw('123456789012345678901234567890123456789'),
    raw('1E+2'),
    raw('0.0000000000000000000000001'),
    raw(`1${'0'.repeat(400)}`),
  ]);
}

/** A real id of some kind (any scene's, or a user's), as a string. */
function anyRealId(g: Gen): string {
  const scenes = g.destructive ? g.world.sacrificial : [g.world.main, ...g.world.sacrificial];
  const s = g.rng.pick(scenes);
  const ids = [s.serverId, s.channelId, s.messageId, s.botId, s.webhookId, s.userId, s.inviteCode, s.threadId, g.world.upload.id];
  if (!g.destructive) ids.push(g.world.owner.id, g.world.member.id, g.world.outsider.id, g.world.bot.id, g.world.looseBot.id);
  return g.rng.pick(ids);
}

function anyId(g: Gen): string {
  return g.rng.chance(0.6) ? anyRealId(g) : g.rng.pick(GARBAGE_IDS);
}

/** A random JSON value, `depth` levels deep at most. */
function anyValue(g: Gen, depth = 2): J {
  const kind = g.rng.weighted<string>([
    [4, 'string'],
    [2, 'number'],
    [1, 'bool'],
    [1, 'null'],
    [depth > 0 ? 2 : 0, 'array'],
    [depth > 0 ? 2 : 0, 'object'],
    [1, 'id'],
    [0.3, 'bytes'],
  ]);
  switch (kind) {
    case 'string':
      return anyString(g);
    case 'number':
      return anyNumber(g);
    case 'bool':
      return g.rng.chance(0.5);
    case 'null':
      return null;
    case 'array':
      return Array.from({ length: g.rng.pick([0, 1, 2, 11, 101]) }, () => anyValue(g, depth - 1));
    case 'object':
      return obj(Array.from({ length: g.rng.int(0, 4) }, () => [anyKey(g), anyValue(g, depth - 1)] as [string, J]));
    case 'id':
      return anyId(g);
    default:
      return {
        bytes: g.rng.pick([
          Buffer.from([0xff, 0xfe]),
          Buffer.from([0xc0, 0xaf]),
          Buffer.from([0xe2, 0x82]),
          Buffer.from([0xed, 0xa0, 0x80]),
          g.rng.bytes(8),
        ]),
      };
  }
}

const KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  '',
  ' ',
  'a'.repeat(300),
  '😀',
  'content',
  'name',
  'id',
  'extra',
  '$where',
  '0',
];

function anyKey(g: Gen): string {
  return g.rng.chance(0.3) ? g.rng.string(g.rng.int(1, 12)) : g.rng.pick(KEYS);
}

function userName(g: Gen): string {
  return g.rng.pick([
    `fz${g.rng.string(10)}`,
    g.world.owner.name,
    g.world.owner.name.toUpperCase(),
    'a',
    'ab',
    LONG(33, 'u'),
    LONG(65, 'u'),
    'bad name!',
    'é€',
    '',
  ]);
}

function permissionList(g: Gen): J {
  const names = ['READ_MESSAGES', 'SEND_MESSAGES', 'ADD_REACTIONS', 'ATTACH_FILES'];
  return g.rng.pick<J>([
    [],
    names.slice(0, g.rng.int(1, 4)),
    ['READ_MESSAGES', 'READ_MESSAGES'],
    ['ADMINISTRATOR'],
    ['read_messages'],
    [...names, 'SEND_MESSAGES'],
    '8',
    '2048',
    8,
    [1, 2],
  ]);
}

function embed(g: Gen): J {
  return obj([
    ['title', anyString(g)],
    ['description', anyString(g)],
    ['url', g.rng.pick(['https://example.com', 'javascript:alert(1)', 'nope'])],
    ['color', g.rng.pick<J>([0xff0000, -1, 2 ** 24, '#ff0000', raw('1e309')])],
    [
      'fields',
      [
        obj([
          ['name', anyString(g)],
          ['value', anyString(g)],
          ['inline', true],
        ]),
      ],
    ],
    ['image', obj([['url', g.rng.pick(['attachment://a.txt', 'https://example.com/a.png', 'x'])]])],
    ['timestamp', g.rng.pick(['2026-01-01T00:00:00Z', 'yesterday', '<t:99999999999999:R>'])],
    ['footer', obj([['text', anyString(g)]])],
    [
      'author',
      obj([
        ['name', anyString(g)],
        ['url', 'https://example.com'],
      ]),
    ],
  ]);
}

function repo(g: Gen): J {
  return obj([
    ['full_name', g.rng.pick(['octo/hello', '', 'x'])],
    ['html_url', g.rng.pick(['https://github.com/octo/hello', 'not a url'])],
  ]);
}

function githubBody(g: Gen, event: string): Array<[string, J]> {
  const sender: [string, J] = ['sender', obj([['login', 'octocat']])];
  switch (event) {
    case 'push':
      return [
        ['ref', g.rng.pick(['refs/heads/main', 'refs/tags/v1', '', 'main'])],
        ['repository', repo(g)],
        ['pusher', obj([['name', 'octocat']])],
        sender,
        [
          'commits',
          Array.from({ length: g.rng.pick([0, 1, 3, 30]) }, (_, i) =>
            obj([
              ['id', `abc${i}def0123456`],
              ['message', anyString(g)],
              ['url', 'https://github.com/x'],
              ['author', obj([['name', 'a']])],
            ]),
          ),
        ],
        ['compare', 'https://github.com/octo/hello/compare/a...b'],
        ['total_commits', anyNumber(g)],
      ];
    case 'pull_request':
      return [
        ['action', g.rng.pick(['opened', 'closed', 'reopened', 'ready_for_review', 'converted_to_draft', 'labeled', ''])],
        [
          'pull_request',
          obj([
            ['number', anyNumber(g)],
            ['title', anyString(g)],
            ['html_url', 'https://github.com/x/pull/1'],
            ['user', obj([['login', 'a']])],
            ['merged', true],
            ['body', anyString(g)],
          ]),
        ],
        ['repository', repo(g)],
        sender,
      ];
    case 'issues':
    case 'issue_comment':
      return [
        ['action', g.rng.pick(['opened', 'closed', 'created', 'deleted'])],
        [
          'issue',
          obj([
            ['number', 1],
            ['title', anyString(g)],
            ['html_url', 'https://github.com/x/issues/1'],
          ]),
        ],
        [
          'comment',
          obj([
            ['body', anyString(g)],
            ['html_url', 'https://github.com/x'],
          ]),
        ],
        ['repository', repo(g)],
        sender,
      ];
    case 'release':
      return [
        ['action', 'published'],
        [
          'release',
          obj([
            ['tag_name', 'v1'],
            ['name', anyString(g)],
            ['html_url', 'https://github.com/x'],
          ]),
        ],
        ['repository', repo(g)],
        sender,
      ];
    default:
      return [['zen', anyString(g)], ['hook_id', anyNumber(g)], ['hook', obj([['events', ['push', 3]]])], ['repository', repo(g)], sender];
  }
}

/** A body the route would accept (as far as the fuzzer knows), as object entries. */
function template(g: Gen, route: Route, githubEvent: string | undefined): Array<[string, J]> {
  const { rng, world, scene } = g;
  const name = (): J => rng.pick<J>([`fz ${rng.string(6)}`, anyString(g)]);
  switch (`${route.method} ${route.path}`) {
    case 'POST /auth/register':
      return [
        ['username', userName(g)],
        ['password', rng.pick([world.password, LONG(8, 'p'), 'password', 'short', LONG(1025)])],
        ...(rng.chance(0.2) ? [['invite', rng.pick<J>([scene.inviteCode, 'nope', '', LONG(65, 'i'), anyString(g)])] as [string, J]] : []),
      ];
    case 'PATCH /bots/:botId':
      return [
        ...(rng.chance(0.5) ? [['name', name()] as [string, J]] : []),
        ...(rng.chance(0.5) ? [['public', rng.pick<J>([true, false, 'yes'])] as [string, J]] : []),
        ...(rng.chance(0.6)
          ? [['interactionsUrl', rng.pick<J>([null, '', 'https://example.com/i', 'ftp://x', LONG(2049, 'u'), anyString(g)])] as [string, J]]
          : []),
      ];
    case 'POST /auth/login':
      return [
        ['username', userName(g)],
        ['password', rng.pick([world.password, 'wrong password', ''])],
      ];
    case 'POST /auth/password':
      // Never the right current password: the spare person keeps theirs for the whole run.
      return [
        ['currentPassword', rng.pick<J>(['wrong password', '', LONG(1025, 'p'), anyString(g)])],
        ['newPassword', rng.pick<J>([world.password, 'short', 'password', LONG(257, 'p'), LONG(1025, 'p'), anyString(g)])],
      ];
    case 'DELETE /users/@me':
      return [['password', rng.pick<J>(['wrong password', '', LONG(1025, 'p'), anyString(g)])]];
    case 'PATCH /users/@me':
      return [
        ...(rng.chance(0.7) ? [['displayName', rng.pick<J>([null, '', name(), LONG(33, 'd'), '\u202E\u200B'])] as [string, J]] : []),
        ...(rng.chance(0.5)
          ? [['avatar', rng.pick<J>([null, world.upload.url, 'https://example.com/a.png', anyString(g)])] as [string, J]]
          : []),
      ];
    // Categories (docs/api.md#categories): a type, a parent that is or is not a category, a sync.
    case 'POST /servers/:serverId/channels':
    case 'PATCH /channels/:channelId':
      return [
        ['name', name()],
        ...some(g, [
          ['type', rng.pick<J>(['text', 'category', 'forum', 'voice', 4, 15, null])],
          ['parentId', rng.pick<J>([null, scene.channelId, anyId(g), ''])],
          ['syncPermissions', rng.pick<J>([true, false, 'yes', null])],
          ['position', limitNumber(g, OBJECT_LIMITS.position)],
          // A forum's (docs/threads.md#forum-channels): tags new or kept, too many, bad names and emoji.
          [
            'availableTags',
            rng.pick<J>([
              [],
              [obj([['name', name()]])],
              [
                obj([
                  ['name', 'a'],
                  ['moderated', true],
                  ['emoji', rng.pick<J>(['🐛', 'x', '', null])],
                ]),
              ],
              [
                obj([
                  ['id', rng.pick<J>([anyId(g), scene.channelId, 3])],
                  ['name', 'kept'],
                ]),
              ],
              Array.from({ length: 21 }, (_, i) => obj([['name', `t${i}`]])),
              [obj([['name', LONG(21, 't')]])],
              null,
            ]),
          ],
          ['defaultAutoArchiveDuration', rng.pick<J>([60, 10080, 61, null, '60'])],
          ['defaultSortOrder', rng.pick<J>(['latest_activity', 'creation_date', 0, null])],
          ['defaultForumLayout', rng.pick<J>(['not_set', 'list', 'gallery', 2])],
          ['defaultReactionEmoji', rng.pick<J>(['👍', 'no', null])],
        ]),
      ];
    // Array bodies (`makeBody` wraps these entries in a list).
    case 'PATCH /servers/:serverId/channels':
      return [
        ['id', rng.pick<J>([scene.channelId, anyId(g), 3])],
        ...some(g, [
          ['position', limitNumber(g, OBJECT_LIMITS.position)],
          ['parentId', rng.pick<J>([null, scene.channelId, anyId(g)])],
          ['syncPermissions', rng.pick<J>([true, false, 1])],
        ]),
      ];
    case 'PATCH /api/guilds/:guildId/channels':
      return [
        ['id', rng.pick<J>([scene.channelId, anyId(g), 3])],
        ...some(g, [
          ['position', limitNumber(g, OBJECT_LIMITS.position)],
          ['parent_id', rng.pick<J>([null, scene.channelId, anyId(g)])],
          ['lock_permissions', rng.pick<J>([true, false, null, 'x'])],
        ]),
      ];
    case 'POST /bots':
    case 'POST /servers':
    case 'PATCH /servers/:serverId':
      return [
        ['name', name()],
        ...(rng.chance(0.3) ? [['avatar', rng.pick<J>([null, world.upload.url, 'https://example.com/a.png'])] as [string, J]] : []),
      ];
    case 'POST /servers/:serverId/bots':
      return [
        ['botId', rng.pick([world.looseBot.id, scene.botId, anyId(g)])],
        ...(rng.chance(0.6) ? [['permissions', permissionList(g)] as [string, J]] : []),
      ];
    case 'PATCH /servers/:serverId/bots/:botId':
      return [['permissions', permissionList(g)]];
    case 'PATCH /servers/:serverId/members/:userId':
      return [['nick', rng.pick<J>([null, '', name(), LONG(33, 'n'), LONG(101, 'n'), '\u202E\u200B', 3])]];
    case 'POST /servers/:serverId/webhooks':
    case 'PATCH /webhooks/:webhookId':
      return [
        ['name', name()],
        ['channelId', rng.pick([scene.channelId, anyId(g)])],
        ['avatar', rng.pick<J>([null, 'https://example.com/a.png', world.upload.url])],
      ];
    case 'POST /channels/:channelId/threads':
    case 'POST /channels/:channelId/messages/:messageId/threads':
    case 'PATCH /threads/:threadId':
      return [
        ...(route.method === 'POST' || rng.chance(0.5) ? [['name', name()] as [string, J]] : []),
        ...(rng.chance(0.3) ? [['type', rng.pick<J>(['public_thread', 'private_thread', 11, 'text', null])] as [string, J]] : []),
        ...(rng.chance(0.3) ? [['autoArchiveDuration', rng.pick<J>([60, 1440, 4320, 10080, 0, 61, -1, '60'])] as [string, J]] : []),
        ...(rng.chance(0.2) ? [['invitable', rng.pick<J>([true, false, 'no'])] as [string, J]] : []),
        ...(route.method === 'PATCH' && rng.chance(0.4) ? [['archived', rng.pick<J>([true, false, 1])] as [string, J]] : []),
        ...(route.method === 'PATCH' && rng.chance(0.3) ? [['locked', rng.pick<J>([true, false, 'yes'])] as [string, J]] : []),
        // Forum posts (docs/threads.md#forum-posts): a first message and tags, right or wrong.
        ...(route.method === 'POST' && rng.chance(0.3)
          ? [['message', rng.pick<J>([obj([['content', anyString(g)]]), obj([]), 'text', null])] as [string, J]]
          : []),
        ...(route.path !== '/channels/:channelId/messages/:messageId/threads' && rng.chance(0.3)
          ? [
              [
                'appliedTags',
                rng.pick<J>([[], [anyId(g)], [scene.channelId, scene.channelId], Array.from({ length: 6 }, () => anyId(g)), 'x']),
              ] as [string, J],
            ]
          : []),
      ];
    case 'POST /channels/:channelId/messages':
      return [
        ['content', anyString(g)],
        ...(rng.chance(0.4)
          ? [
              [
                'attachments',
                [
                  obj([
                    ['url', rng.pick([world.upload.url, world.upload.path, 'https://example.com/x', anyString(g)])],
                    ['filename', rng.pick(FILENAMES)],
                  ]),
                ],
              ] as [string, J],
            ]
          : []),
      ];
    case 'PATCH /channels/:channelId/messages/:messageId':
      return [['content', anyString(g)]];
    case 'POST /webhooks/:webhookId/:token':
      return [
        ['content', anyString(g)],
        ...(rng.chance(0.4) ? [['username', anyString(g)] as [string, J]] : []),
        ...(rng.chance(0.3) ? [['avatar_url', rng.pick(['https://example.com/a.png', 'javascript:x', ''])] as [string, J]] : []),
        ...(rng.chance(0.4) ? [['embeds', Array.from({ length: rng.pick([1, 2, 11]) }, () => embed(g))] as [string, J]] : []),
      ];
    case 'POST /webhooks/:webhookId/:token/slack':
      return [
        ['text', anyString(g)],
        ...(rng.chance(0.3)
          ? ([
              ['username', anyString(g)],
              ['icon_url', 'https://example.com/i.png'],
            ] as Array<[string, J]>)
          : []),
        ...(rng.chance(0.4)
          ? [
              [
                'attachments',
                [
                  obj([
                    ['fallback', anyString(g)],
                    ['title', anyString(g)],
                    ['text', anyString(g)],
                    ['color', rng.pick(['good', '#zzz', '#ff0000', 'danger'])],
                    [
                      'fields',
                      [
                        obj([
                          ['title', 'a'],
                          ['value', anyString(g)],
                          ['short', true],
                        ]),
                      ],
                    ],
                  ]),
                ],
              ] as [string, J],
            ]
          : []),
        ...(rng.chance(0.3)
          ? [
              [
                'blocks',
                [
                  obj([
                    ['type', 'section'],
                    [
                      'text',
                      obj([
                        ['type', 'mrkdwn'],
                        ['text', anyString(g)],
                      ]),
                    ],
                  ]),
                  obj([
                    ['type', rng.pick(['header', 'image', 'context', 'divider', 'bogus'])],
                    ['image_url', 'https://example.com/a.png'],
                    [
                      'text',
                      obj([
                        ['type', 'plain_text'],
                        ['text', anyString(g)],
                      ]),
                    ],
                  ]),
                ],
              ] as [string, J],
            ]
          : []),
      ];
    case 'POST /webhooks/:webhookId/:token/github':
      return githubBody(g, githubEvent ?? 'push');
    // The Discord layer's JSON bodies (src/discord/schemas.ts): numbers at and past each
    // limit, 1e300 and fractions included, so the fuzz reaches the schema and the caps.
    case 'POST /api/guilds/:guildId/channels':
    case 'PATCH /api/channels/:channelId':
      return [
        ['name', name()],
        ...some(g, [
          ['position', limitNumber(g, OBJECT_LIMITS.position)],
          ['topic', rng.pick<J>([null, anyString(g), LONG(OBJECT_LIMITS.topic + 1)])],
          ['rate_limit_per_user', limitNumber(g, 21_600)],
          ['bitrate', limitNumber(g, 384_000)],
          ['user_limit', limitNumber(g, 99)],
          ['type', rng.pick<J>([0, 2, 4, null, '0'])],
          ['parent_id', rng.pick<J>([null, scene.channelId, anyId(g)])],
          ['lock_permissions', rng.pick<J>([true, false, null])],
        ]),
      ];
    case 'POST /api/guilds/:guildId/roles':
    case 'PATCH /api/guilds/:guildId/roles/:roleId':
      return [
        ['name', name()],
        ...some(g, [
          ['color', limitNumber(g, 0xffffff)],
          ['position', limitNumber(g, OBJECT_LIMITS.position)],
          ['permissions', rng.pick<J>(['0', '8', '1e300', limitNumber(g, 2 ** 53)])],
          ['hoist', rng.pick<J>([true, 'yes', null])],
        ]),
      ];
    case 'PATCH /api/guilds/:guildId':
      return [
        ['name', name()],
        ...some(g, [
          ['afk_timeout', limitNumber(g, 3600)],
          ['verification_level', limitNumber(g, 4)],
        ]),
      ];
    case 'PUT /api/guilds/:guildId/bans/:userId':
      return some(g, [
        ['delete_message_seconds', limitNumber(g, OBJECT_LIMITS.banDeleteSeconds)],
        ['delete_message_days', limitNumber(g, 7)],
      ]);
    case 'PATCH /api/guilds/:guildId/members/:userId':
    case 'PATCH /api/guilds/:guildId/members/@me':
      return some(g, [
        ['nick', rng.pick<J>([null, '', name(), LONG(33, 'n'), LONG(101, 'n')])],
        ['roles', rng.pick<J>([[], [scene.serverId], [anyId(g), anyId(g)], 'x', null])],
        ['channel_id', rng.pick<J>([null, anyId(g)])],
        ['communication_disabled_until', rng.pick<J>([null, '2030-01-01T00:00:00Z', anyString(g)])],
        ['mute', rng.pick<J>([null, true, 'no'])],
        ['deaf', rng.pick<J>([null, false])],
      ]);
    case 'POST /api/channels/:channelId/messages/bulk-delete':
      return [['messages', Array.from({ length: rng.pick([0, 1, 2, OBJECT_LIMITS.bulkDeleteMax + 1]) }, () => anyId(g))]];
    case 'POST /api/users/@me/channels':
      return rng.chance(0.3)
        ? [['recipient_id', anyId(g)]]
        : [
            [
              'recipients',
              Array.from({ length: rng.pick([0, 1, OBJECT_LIMITS.groupDmMembers - 1, OBJECT_LIMITS.groupDmMembers, 25]) }, () => anyId(g)),
            ],
          ];
    case 'POST /channels/:channelId/interactions': {
      // Commands' and interactions' bodies, with user and message commands and modal submits (docs/commands.md).
      const kind = rng.pick(['command', 'context', 'component', 'autocomplete', 'modalSubmit']);
      if (kind === 'modalSubmit')
        return [
          ['type', 'modalSubmit'],
          ['interactionId', rng.pick<J>([anyId(g), scene.messageId, '', LONG(33, '1')])],
          ['customId', rng.pick<J>(['m', '', LONG(101, 'c'), anyString(g)])],
          [
            'fields',
            rng.pick<J>([
              [],
              [
                obj([
                  ['customId', 'a'],
                  ['value', anyString(g)],
                ]),
              ],
              Array.from({ length: 6 }, () =>
                obj([
                  ['customId', anyString(g)],
                  ['value', LONG(4001, 'v')],
                ]),
              ),
              'x',
            ]),
          ],
        ];
      if (kind === 'context')
        return [
          ['type', 'command'],
          ['botId', rng.pick([scene.botId, anyId(g)])],
          ['name', rng.pick<J>(['Quote It', 'High Five', LONG(33, 'N'), anyString(g)])],
          ['commandType', rng.pick<J>(['user', 'message', 'chat', 'slash', 2])],
          ['targetId', rng.pick<J>([scene.messageId, scene.userId, anyId(g), '', 7])],
          ...(rng.chance(0.2) ? [['options', obj([['x', 1]])] as [string, J]] : []),
        ];
      return [
        ['type', kind],
        ['botId', rng.pick([scene.botId, anyId(g)])],
        ['name', rng.pick<J>(['roll', anyString(g)])],
        ['messageId', scene.messageId],
        ['customId', anyString(g)],
        ...(kind === 'autocomplete' ? [['focused', anyString(g)] as [string, J]] : []),
      ];
    }
    case 'POST /interactions/:interactionId/:token/callback':
    case 'POST /api/interactions/:id/:token/callback': {
      // A modal answer at and past Discord's limits, in either API's shape.
      const discord = route.path.startsWith('/api');
      const input = discord
        ? obj([
            ['type', rng.pick<J>([4, 3, 'x'])],
            ['custom_id', rng.pick<J>(['a', LONG(101, 'c')])],
            ['style', rng.pick<J>([1, 2, 3])],
            ['label', rng.pick<J>(['A', '', LONG(46, 'l')])],
            ['min_length', limitNumber(g, 4000)],
            ['max_length', limitNumber(g, 4000)],
          ])
        : obj([
            ['type', 'textInput'],
            ['customId', rng.pick<J>(['a', LONG(101, 'c')])],
            ['style', rng.pick<J>(['short', 'paragraph', 'long'])],
            ['label', rng.pick<J>(['A', '', LONG(46, 'l')])],
            ['minLength', limitNumber(g, 4000)],
            ['maxLength', limitNumber(g, 4000)],
          ]);
      const rows = Array.from({ length: rng.pick([0, 1, 5, 6]) }, () =>
        obj([
          ['type', discord ? 1 : 'row'],
          ['components', [input]],
        ]),
      );
      const modal = obj([
        [discord ? 'custom_id' : 'customId', rng.pick<J>(['m', LONG(101, 'm')])],
        ['title', rng.pick<J>(['T', '', LONG(46, 't')])],
        ['components', rows],
      ]);
      return [
        ['type', discord ? rng.pick<J>([9, 4, 10]) : rng.pick<J>(['modal', 'message'])],
        ['data', discord ? modal : obj([['modal', modal]])],
      ];
    }
    default:
      // A route this suite does not know yet: fields common across the API.
      return Array.from(
        { length: rng.int(1, 3) },
        () =>
          [rng.pick(['name', 'content', 'channelId', 'permissions', 'avatar', 'text', 'botId', 'username']), anyValue(g, 1)] as [string, J],
      );
  }
}

/** A number around `limit`: inside, at, just past, far past (1e300), negative or fractional. */
function limitNumber(g: Gen, limit: number): J {
  return g.rng.pick<J>([0, 1, limit, limit + 1, -1, 1.5, 1e300, raw('1e400'), Number.MAX_SAFE_INTEGER + 2]);
}

/** Each entry with even odds: a body with some of its optional fields. */
function some(g: Gen, entries: Array<[string, J]>): Array<[string, J]> {
  return entries.filter(() => g.rng.chance(0.5));
}

/** Breaks a template in one to three ways. */
function mutate(g: Gen, entries: Array<[string, J]>): J {
  let value: J = obj(entries.map(([k, v]) => [k, v] as [string, J]));
  const n = g.rng.int(1, 3);
  for (let i = 0; i < n; i++) {
    const cur = entriesOf(value);
    const op = g.rng.pick(['wrong-type', 'drop-key', 'add-key', 'dup-key', 'proto', 'long', 'wrap-array', 'replace-whole', 'null', 'nest']);
    g.notes.push(`json:${op}`);
    if (!cur) break;
    const idx = cur.length > 0 ? g.rng.int(0, cur.length - 1) : -1;
    switch (op) {
      case 'wrong-type':
        if (idx >= 0) cur[idx] = [cur[idx]![0], anyValue(g)];
        break;
      case 'drop-key':
        if (idx >= 0) cur.splice(idx, 1);
        break;
      case 'add-key':
        cur.push([anyKey(g), anyValue(g)]);
        break;
      case 'dup-key':
        if (idx >= 0) cur.push([cur[idx]![0], anyValue(g)]);
        break;
      case 'proto':
        cur.push(
          g.rng.pick<[string, J]>([
            [
              '__proto__',
              obj([
                ['isAdmin', true],
                ['bot', false],
              ]),
            ],
            ['constructor', obj([['prototype', obj([['isAdmin', true]])]])],
            ['__proto__', null],
            ['__proto__', []],
            ['prototype', obj([['x', 1]])],
            ['constructor', 'x'],
          ]),
        );
        break;
      case 'long':
        if (idx >= 0) cur[idx] = [cur[idx]![0], g.rng.pick([LONG(4001), LONG(70_000), '😀'.repeat(5000)])];
        break;
      case 'wrap-array':
        value = [value];
        break;
      case 'replace-whole':
        value = g.rng.pick<J>([null, true, 0, 'string', [], raw('1e309'), [obj([])]]);
        break;
      case 'null':
        if (idx >= 0) cur[idx] = [cur[idx]![0], null];
        break;
      case 'nest':
        if (idx >= 0) cur[idx] = [cur[idx]![0], obj([[cur[idx]![0], cur[idx]![1]]])];
        break;
    }
  }
  return value;
}

const MALFORMED_JSON = [
  '{',
  '}',
  '{"a":}',
  '{"a" 1}',
  '{a:1}',
  "{'content':'x'}",
  '{"content":"x",}',
  '[1,2,]',
  '{"content":"x"} trailing',
  '{"content":"x"}{"content":"y"}',
  '{"content":"unterminated',
  '{"content":"bad \\x escape"}',
  '{"content":"\\u12"}',
  '{"content":"\\ud800\\u0041"}',
  '{"content":"raw\nnewline"}',
  '{"content":"tab\there"}',
  '{"content": NaN}',
  '{"content": Infinity}',
  '{"content": undefined}',
  '{"content": 0x10}',
  '{"content": 01}',
  '{"content": .5}',
  '{"content": +1}',
  '/* comment */ {"content":"x"}',
  '{"content":"x"} // comment',
  'undefined',
  'null',
  'true',
  '"just a string"',
  '12345',
  '[]',
  '{}',
  '\u0000',
  '{"__proto__":{"polluted":1}}',
  '{"constructor":{"prototype":{"polluted":1}}}',
  '{"a":{"__proto__":{"x":1}}}',
  '   ',
  '\n\n',
];

/**
 * JSON nested `depth` levels. Most often a valid body with the depth under a key no
 * schema looks at, so it gets past validation to whatever walks the body afterwards
 * (idempotency fingerprints, the webhook dialects).
 */
function deepJson(g: Gen, entries: Array<[string, J]> = []): string {
  const depth = g.rng.pick([65, 1000, 5000, 20_000, 100_000]);
  const variant = g.rng.weighted<string>([
    [3, 'unknown-key'],
    [1, 'arrays'],
    [1, 'content'],
    [1, 'embeds'],
    [1, 'attachments'],
  ]);
  g.notes.push(`deep:${variant}:${depth}`);
  switch (variant) {
    case 'unknown-key': {
      const valid = serialize(obj(entries)).toString('utf8');
      const deep = `"extra":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
      return valid === '{}' ? `{${deep}}` : `${valid.slice(0, -1)},${deep}}`;
    }
    case 'arrays':
      return '['.repeat(depth) + ']'.repeat(depth);
    case 'content':
      return `${'{"content":'.repeat(depth)}"x"${'}'.repeat(depth)}`;
    case 'embeds':
      // Where the dialects look without a schema: embeds, Slack attachments and blocks.
      return `{"content":"x","text":"y","embeds":[${'{"fields":['.repeat(depth)}${']}'.repeat(depth)}],"blocks":[]}`;
    default:
      return `{"content":"x","text":"y","attachments":[{"fields":[${'['.repeat(depth)}${']'.repeat(depth)}]}]}`;
  }
}

// ---------------------------------------------------------------------------------------
// Bodies

interface Body {
  body?: Buffer;
  contentType?: string;
  extraHeaders?: Array<[string, string | Buffer]>;
}

function multipartBody(g: Gen, fields: Array<[string, string]>, forUpload: boolean): Body {
  const { rng } = g;
  const boundary = `----fuzz${rng.string(16)}`;
  const CRLF = '\r\n';
  type Part = { headers: Array<string | Buffer>; data: Buffer };
  const file = (name: string, filename: string | Buffer, type: string, data: Buffer): Part => ({
    headers: [
      Buffer.concat([
        Buffer.from(`Content-Disposition: form-data; name="${name}"; filename="`),
        typeof filename === 'string' ? Buffer.from(filename) : filename,
        Buffer.from('"'),
      ]),
      ...(type ? [`Content-Type: ${type}`] : []),
    ],
    data,
  });
  const field = (name: string, value: string): Part => ({
    headers: [`Content-Disposition: form-data; name="${name}"`],
    data: Buffer.from(value),
  });
  const fileData = () => (rng.chance(0.05) ? rng.bytes(200_000) : rng.chance(0.3) ? Buffer.alloc(0) : rng.bytes(rng.int(1, 4096)));

  const variant = rng.pick([
    'file',
    'file',
    'file',
    'weird-filename',
    'filename-star',
    'two-files',
    'many-files',
    'many-fields',
    'field-named-file',
    'wrong-field-name',
    'no-disposition',
    'no-name',
    'fields',
    'payload_json',
    'payload_json+file',
    'empty-multipart',
    'empty-body',
    'truncated',
    'no-closing',
    'other-boundary',
    'lf-only',
    'preamble',
    'bad-part-header',
    'nested-multipart',
    'huge-part-header',
  ]);
  g.notes.push(`multipart:${variant}`);
  let parts: Part[] = [];
  const fname = rng.pick(FILENAMES);
  switch (variant) {
    case 'file':
      parts = [file('file', fname, rng.pick(FILE_TYPES), fileData())];
      if (!forUpload) parts.unshift(...fields.map(([k, v]) => field(k, v)));
      break;
    case 'weird-filename':
      parts = [
        file(
          'file',
          rng.pick<string | Buffer>([
            Buffer.from([0xff, 0xfe, 0x2e, 0x74]),
            Buffer.from('a\r\nInjected: 1'),
            'x'.repeat(5000),
            ...FILENAMES,
          ]),
          'text/plain',
          fileData(),
        ),
      ];
      break;
    case 'filename-star':
      parts = [
        {
          headers: [
            `Content-Disposition: form-data; name="file"; filename*=UTF-8''${rng.pick(['%FF%FE', '%E2%82%AC.txt', '..%2F..%2Fx', '%', ''])}`,
          ],
          data: fileData(),
        },
      ];
      break;
    case 'two-files':
      parts = [file('file', 'a.txt', 'text/plain', fileData()), file('file', 'b.txt', 'text/plain', fileData())];
      break;
    case 'many-files':
      parts = Array.from({ length: 12 }, (_, i) => file(`files[${i}]`, `f${i}.txt`, 'text/plain', Buffer.from('x')));
      break;
    case 'many-fields':
      parts = Array.from({ length: 25 }, (_, i) => field(`f${i}`, 'v'));
      break;
    case 'field-named-file':
      parts = [field('file', 'not a file')];
      break;
    case 'wrong-field-name':
      parts = [file(rng.pick(['upload', 'files[0]', '', '__proto__', 'file ']), fname, 'text/plain', fileData())];
      break;
    case 'no-disposition':
      parts = [{ headers: ['Content-Type: text/plain'], data: Buffer.from('x') }];
      break;
    case 'no-name':
      parts = [{ headers: ['Content-Disposition: form-data; filename="a.txt"'], data: Buffer.from('x') }];
      break;
    case 'fields':
      parts = fields.map(([k, v]) => field(k, v));
      if (parts.length === 0) parts = [field('content', anyString(g))];
      break;
    case 'payload_json':
    case 'payload_json+file': {
      const json = rng.weighted<() => string>([
        [5, () => serialize(obj(fields.map(([k, v]) => [k, v] as [string, J]))).toString()],
        [3, () => rng.pick(MALFORMED_JSON)],
        [
          2,
          () =>
            deepJson(
              g,
              fields.map(([k, v]) => [k, v] as [string, J]),
            ),
        ],
      ])();
      parts = [field('payload_json', json)];
      if (variant === 'payload_json+file') parts.push(file('files[0]', fname, rng.pick(FILE_TYPES), fileData()));
      break;
    }
    case 'empty-multipart':
      return { body: Buffer.from(`--${boundary}--${CRLF}`), contentType: `multipart/form-data; boundary=${boundary}` };
    case 'empty-body':
      return { body: Buffer.alloc(0), contentType: `multipart/form-data; boundary=${boundary}` };
    case 'nested-multipart':
      parts = [
        {
          headers: ['Content-Disposition: form-data; name="file"', 'Content-Type: multipart/mixed; boundary=inner'],
          data: Buffer.from(`--inner${CRLF}Content-Disposition: file; filename="a.txt"${CRLF}${CRLF}x${CRLF}--inner--`),
        },
      ];
      break;
    case 'huge-part-header':
      parts = [
        { headers: [`Content-Disposition: form-data; name="file"; filename="a.txt"`, `X-Pad: ${LONG(100_000)}`], data: Buffer.from('x') },
      ];
      break;
    case 'bad-part-header':
      parts = [{ headers: ['Content-Disposition form-data name=file', 'no colon here'], data: Buffer.from('x') }];
      break;
    default:
      parts = [file('file', fname, 'text/plain', fileData())];
  }

  const eol = variant === 'lf-only' ? '\n' : CRLF;
  const wire = variant === 'other-boundary' ? `other${boundary}` : boundary;
  const chunks: Buffer[] = [];
  if (variant === 'preamble') chunks.push(Buffer.from(`this is a preamble${eol}`));
  for (const p of parts) {
    chunks.push(Buffer.from(`--${wire}${eol}`));
    for (const h of p.headers) chunks.push(typeof h === 'string' ? Buffer.from(h) : h, Buffer.from(eol));
    chunks.push(Buffer.from(eol), p.data, Buffer.from(eol));
  }
  if (variant !== 'no-closing') chunks.push(Buffer.from(`--${wire}--${eol}`));
  if (variant === 'preamble') chunks.push(Buffer.from('epilogue junk'));
  let body = Buffer.concat(chunks);
  if (variant === 'truncated') body = body.subarray(0, rng.int(1, Math.max(1, body.length - 1)));

  const contentType = rng.weighted<string>([
    [12, `multipart/form-data; boundary=${boundary}`],
    [1, `multipart/form-data; boundary="${boundary}"`],
    [1, 'multipart/form-data'],
    [1, 'multipart/form-data; boundary='],
    [1, `multipart/form-data; boundary=${LONG(80, 'b')}`],
    [1, `multipart/form-data; boundary=${boundary}; boundary=other`],
    [1, `multipart/form-data; charset=utf-8; boundary=${boundary}`],
    [1, `multipart/mixed; boundary=${boundary}`],
    [1, `Multipart/Form-Data; boundary=${boundary}`],
  ]);
  return { body, contentType };
}

function formBody(g: Gen, fields: Array<[string, string]>, slack: boolean): Body {
  const { rng } = g;
  const variant = rng.pick(['fields', 'fields', 'payload', 'payload-bad', 'payload-deep', 'garbage']);
  g.notes.push(`form:${variant}`);
  let text: string | Buffer;
  switch (variant) {
    case 'fields':
      text = new URLSearchParams(fields).toString();
      break;
    case 'payload':
      text = `payload=${encodeURIComponent(serialize(obj(fields.map(([k, v]) => [k, v] as [string, J]))).toString())}${slack ? '' : `&payload_json=${encodeURIComponent('{"content":"x"}')}`}`;
      break;
    case 'payload-bad':
      text = `${rng.pick(['payload', 'payload_json', 'embeds'])}=${encodeURIComponent(rng.pick(MALFORMED_JSON))}`;
      break;
    case 'payload-deep':
      text = `${rng.pick(['payload', 'payload_json', 'embeds'])}=${encodeURIComponent(
        deepJson(
          g,
          fields.map(([k, v]) => [k, v] as [string, J]),
        ),
      )}`;
      break;
    default:
      text = rng.pick<string | Buffer>([
        '%ZZ=1',
        '=',
        '&&&',
        'a',
        'content=x&content=y',
        '__proto__=1&constructor=2',
        '__proto__[x]=1',
        'content=%FF%FE',
        'content=%00',
        `content=${LONG(70_000)}`,
        Buffer.from([0x63, 0x3d, 0xff, 0xfe]),
        `text=${encodeURIComponent('*bold* <https://example.com|link>')}`,
        'payload=',
      ]);
  }
  return {
    body: typeof text === 'string' ? Buffer.from(text) : text,
    contentType: rng.pick([
      'application/x-www-form-urlencoded',
      'application/x-www-form-urlencoded; charset=utf-8',
      'application/x-www-form-urlencoded; charset=latin1',
    ]),
  };
}

/** Routes whose JSON body is a list of the objects `template` describes. */
const ARRAY_BODIES = new Set(['PATCH /servers/:serverId/channels', 'PATCH /api/guilds/:guildId/channels']);

function makeBody(g: Gen, route: Route, githubEvent: string | undefined): Body {
  const { rng } = g;
  const isUpload = route.path === '/upload';
  const isExecute = route.path.startsWith('/webhooks/:webhookId/:token');
  const isSlack = route.path.endsWith('/slack');
  const kind = rng.weighted<string>([
    [isUpload ? 8 : 40, 'mutated'],
    [isUpload ? 1 : 8, 'valid'],
    [10, 'random-json'],
    [10, 'malformed-json'],
    [6, 'byte-tricks'],
    [6, 'deep'],
    [0.6, 'huge'],
    [5, 'empty'],
    [isSlack || isExecute ? 12 : 4, 'form'],
    [isUpload ? 70 : isExecute ? 14 : 4, 'multipart'],
    [4, 'other-type'],
    [1, 'compressed'],
  ]);
  g.notes.push(`body:${kind}`);
  const entries = template(g, route, githubEvent);
  const json = (v: J): Body => ({ body: serialize(v), contentType: 'application/json' });
  // The bulk channel moves take a list of such objects (one, several, or none).
  const list = ARRAY_BODIES.has(`${route.method} ${route.path}`);
  const listOf = (v: J): J => (list ? rng.pick<J[]>([[v], [v, v], []]) : v);
  switch (kind) {
    case 'mutated':
      return json(listOf(mutate(g, entries)));
    case 'valid':
      return json(listOf(obj(entries)));
    case 'random-json':
      return json(anyValue(g, 3));
    case 'malformed-json':
      return { body: Buffer.from(rng.pick(MALFORMED_JSON)), contentType: 'application/json' };
    case 'byte-tricks': {
      const base = serialize(obj(entries));
      const trick = rng.pick(['bom', 'utf16', 'invalid-utf8', 'nul-bytes', 'latin1', 'utf32']);
      g.notes.push(`bytes:${trick}`);
      switch (trick) {
        case 'bom':
          return { body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), base]), contentType: 'application/json' };
        case 'utf16':
          return {
            body: Buffer.from(base.toString('utf8'), 'utf16le'),
            contentType: rng.pick(['application/json', 'application/json; charset=utf-16le']),
          };
        case 'utf32':
          return {
            body: Buffer.concat([Buffer.from([0xff, 0xfe, 0, 0]), Buffer.from(base.toString('utf8'), 'utf16le')]),
            contentType: 'application/json',
          };
        case 'invalid-utf8':
          return json(
            obj([...entries.map(([k]) => [k, { bytes: Buffer.from([0x61, 0xff, 0xc3, 0x28, 0xed, 0xa0, 0x80]) }] as [string, J])]),
          );
        case 'nul-bytes':
          return {
            body: Buffer.concat([
              base.subarray(0, Math.floor(base.length / 2)),
              Buffer.from([0]),
              base.subarray(Math.floor(base.length / 2)),
            ]),
            contentType: 'application/json',
          };
        default:
          return {
            body: Buffer.from(base.toString('utf8').replace(/"$/, ''), 'latin1'),
            contentType: 'application/json; charset=iso-8859-1',
          };
      }
    }
    case 'deep':
      return { body: Buffer.from(deepJson(g, entries)), contentType: 'application/json' };
    case 'huge': {
      const size = rng.pick([1024 * 1024 + 1, 3 * 1024 * 1024]);
      const content = LONG(size);
      return {
        body: Buffer.from(`{"content":"${content}","name":"${content.slice(0, 10)}"}`),
        contentType: rng.pick(['application/json', 'text/plain', 'application/x-www-form-urlencoded']),
      };
    }
    case 'empty':
      return {
        body: Buffer.alloc(0),
        contentType: rng.pick(['application/json', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'text/plain']),
      };
    case 'form':
      return formBody(g, flatten(obj(entries)), isSlack);
    case 'multipart':
      return multipartBody(g, flatten(obj(entries)), isUpload);
    case 'compressed': {
      const inner = serialize(obj(entries));
      const enc = rng.pick(['gzip', 'deflate', 'br', 'x-unknown']);
      const body = enc === 'gzip' ? zlib.gzipSync(inner) : enc === 'deflate' ? zlib.deflateSync(inner) : rng.bytes(64);
      return { body, contentType: 'application/json', extraHeaders: [['Content-Encoding', enc]] };
    }
    default:
      return { body: rng.chance(0.5) ? rng.bytes(rng.int(1, 512)) : serialize(obj(entries)), contentType: rng.pick(CONTENT_TYPES) };
  }
}

// ---------------------------------------------------------------------------------------
// Paths, queries, credentials, headers

function realParam(g: Gen, route: Route, name: string): string {
  const { scene, world, rng } = g;
  const n = name.toLowerCase();
  if (route.path.startsWith('/uploads/'))
    return n === 'filename' ? encodeURIComponent(world.upload.filename) : n === 'secret' ? world.upload.secret : world.upload.id;
  if (n.includes('server')) return scene.serverId;
  if (n.includes('thread')) return scene.threadId;
  if (n.includes('channel')) return scene.channelId;
  if (n.includes('message')) return scene.messageId;
  if (n.includes('webhook')) return scene.webhookId;
  if (n === 'token') return scene.webhookToken;
  if (n.includes('bot')) return scene.botId;
  if (n.includes('user') || n.includes('member')) {
    return g.destructive
      ? rng.pick([scene.userId, '@me'])
      : rng.pick([scene.userId, '@me', world.owner.id, world.bot.id, world.outsider.id]);
  }
  if (n === 'code' || n.includes('invite')) return scene.inviteCode;
  if (n === 'emoji') return encodeURIComponent(rng.pick(EMOJIS));
  return anyRealId(g);
}

/** Fills the route's parameters; returns the path and whether it certainly routes there. */
function fillPath(g: Gen, route: Route): { path: string; routes: boolean } {
  const { rng } = g;
  let routes = true;
  const path = route.path.replace(/:([A-Za-z0-9_$]+)(\([^)]*\))?|\*/g, (_m, name: string | undefined) => {
    const r = rng.next();
    if (r < 0.68) return realParam(g, route, name ?? '*');
    if (r < 0.8) {
      if (name === 'token') return rng.pick([g.world.owner.token, g.world.bot.token, 'x'.repeat(43), g.world.sacrificial[0]!.webhookToken]);
      return encodeURIComponent(anyRealId(g));
    }
    const [seg, safe] = rng.pick(GARBAGE_SEGMENTS);
    g.notes.push(`param:${name}=${seg.length > 40 ? `${seg.slice(0, 10)}…(${seg.length})` : seg}`);
    if (!safe) routes = false;
    return seg;
  });
  return { path, routes };
}

/** Changes the path's shape; most of these send it to another route or none. */
function mutatePath(g: Gen, path: string): string | Buffer {
  const { rng } = g;
  const op = rng.pick([
    'trailing-slash',
    'double-slash',
    'dot-segment',
    'dotdot-segment',
    'encoded-dots',
    'extra-segment',
    'drop-segment',
    'uppercase',
    'api-prefix',
    'raw-utf8',
    'raw-invalid-utf8',
    'very-long',
    'absolute-form',
    'no-leading-slash',
    'backslashes',
    'encoded-slash',
    'semicolon',
    'fragment',
    'raw-space',
    'raw-tab',
    'encoded-nul',
    'raw-control',
  ]);
  g.notes.push(`path:${op}`);
  g.structural = true;
  const segs = path.split('/');
  switch (op) {
    case 'trailing-slash':
      return `${path}/`;
    case 'double-slash':
      return path.replace('/', '//');
    case 'dot-segment':
      return `${segs.slice(0, 2).join('/')}/./${segs.slice(2).join('/')}`;
    case 'dotdot-segment':
      return `${path}/../${segs[segs.length - 1] ?? ''}`;
    case 'encoded-dots':
      return `${path}/%2e%2e/%2E%2e/x`;
    case 'extra-segment':
      return `${path}/${rng.pick(['x', '..', '%2e', 'messages', '__proto__'])}`;
    case 'drop-segment':
      return segs.slice(0, -1).join('/') || '/';
    case 'uppercase':
      return path.toUpperCase();
    case 'api-prefix':
      return `/api/v10${path}`;
    case 'raw-utf8':
      return Buffer.concat([Buffer.from(path), Buffer.from('/é😀', 'utf8')]);
    case 'raw-invalid-utf8':
      return Buffer.concat([Buffer.from(path), Buffer.from([0x2f, 0xff, 0xfe, 0xc0, 0xaf])]);
    case 'very-long':
      return `${path}/${LONG(rng.pick([2000, 9000, 20_000]), 'a')}`;
    case 'absolute-form':
      return `http://${rng.pick(['127.0.0.1', 'evil.example', ''])}${path}`;
    case 'no-leading-slash':
      return path.slice(1);
    case 'backslashes':
      return path.replace(/\//g, '\\');
    case 'encoded-slash':
      return path.replace(/\/(?=[^/]*$)/, '%2F');
    case 'semicolon':
      return `${path};jsessionid=1`;
    case 'fragment':
      return `${path}#frag`;
    case 'raw-space':
      return `${path}/a b`;
    case 'raw-tab':
      return `${path}\t`;
    case 'encoded-nul':
      return `${path}%00`;
    default:
      return Buffer.concat([Buffer.from(path), Buffer.from([0x01, 0x7f])]);
  }
}

function query(g: Gen): string {
  const { rng } = g;
  const id = () => rng.pick([g.world.main.messageId, ...GARBAGE_IDS]);
  const pairs = [
    () =>
      `limit=${rng.pick(['0', '-1', '1', '50', '100', '101', '1e2', 'abc', '', '1.5', '9'.repeat(400), '%FF', '%00', '%205', '0x10', 'NaN', 'Infinity', '001'])}`,
    () => `before=${encodeURIComponent(id())}`,
    () => `after=${encodeURIComponent(id())}`,
    () => `wait=${rng.pick(['true', 'false', 'maybe', '', 'TRUE', '1'])}`,
    () => `thread_id=${rng.pick(['1', '', 'x'])}`,
    // GET /channels/{id}/threads/archived: its kind, joined-only, and an archive timestamp.
    () => `type=${rng.pick(['public_thread', 'private_thread', 'text', '', '11'])}`,
    () => `joined=${rng.pick(['true', 'false', 'yes', ''])}`,
    () => `before=${rng.pick(['2026-01-01T00:00:00Z', '2026-13-45', 'yesterday', '9'.repeat(30), '1970-01-01'])}`,
    () => 'limit=1&limit=2',
    () => 'limit[]=1',
    () => 'limit[a]=1',
    () => 'a[b][c][d]=1',
    () => '__proto__=1',
    () => '__proto__[polluted]=1',
    () => 'constructor[prototype][polluted]=1',
    () => 'toString=1&hasOwnProperty=1',
    () => '%',
    () => '%ZZ=1',
    () => '=x',
    () => '&&&',
    () => 'a=%FF%FE',
    () => 'a=%C0%AF',
    () => `q=${LONG(rng.pick([1000, 20_000]), 'q')}`,
    () => 'a=1;b=2',
    // GET /users/@me/contacts: id lists and LIKE's own characters.
    () => `ids=${rng.pick([`${id()},${id()}`, ',', '1,,2', `${'1,'.repeat(120)}1`, encodeURIComponent(id())])}`,
    () => `q=${rng.pick(['%25', '_', '%5C', '%25%5C_', '%00', 'a%27%20or%201%3D1'])}`,
    () => 'before=&after=',
    () => `before=${LONG(65, 'A')}`,
  ];
  const n = rng.int(1, 3);
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(rng.pick(pairs)());
  g.notes.push(`query:${parts.join('&').slice(0, 60)}`);
  return `?${parts.join('&')}`;
}

/** Routes that end sessions or the account itself: called only with the spare person's sessions. */
function endsSessions(route: Route): boolean {
  return /logout|sessions|password/.test(route.path) || (route.method === 'DELETE' && route.path === '/users/@me');
}

function authHeader(g: Gen, route: Route): string | Buffer | undefined {
  const { rng, world } = g;
  const sessionEnding = endsSessions(route);
  const ownerToken = () => (sessionEnding ? rng.pick(world.spareSessions) : world.owner.token);
  const choice = rng.weighted<string>([
    [12, 'none'],
    [34, 'owner'],
    [8, 'member'],
    [5, 'outsider'],
    [14, 'bot'],
    [3, 'loose-bot'],
    [24, 'garbage'],
  ]);
  g.notes.push(`auth:${choice}`);
  const memberToken = () => (sessionEnding ? rng.pick(world.spareSessions) : world.member.token);
  switch (choice) {
    case 'none':
      return undefined;
    case 'owner':
      return `Bearer ${ownerToken()}`;
    case 'member':
      return `Bearer ${memberToken()}`;
    case 'outsider':
      return `Bearer ${sessionEnding ? rng.pick(world.spareSessions) : world.outsider.token}`;
    case 'bot':
      return `Bot ${world.bot.token}`;
    case 'loose-bot':
      return `Bot ${world.looseBot.token}`;
    default: {
      // Variants that still authenticate (extra spaces) must not end the main session.
      const t = sessionEnding ? rng.pick(world.spareSessions) : world.owner.token;
      const [tid] = t.split('.');
      return rng.pick<string | Buffer>([
        '',
        'Bearer',
        'Bearer ',
        'Bot',
        'Bot ',
        'Basic dXNlcjpwYXNzd29yZA==',
        `bearer ${t}`,
        `BEARER ${t}`,
        `Bearer ${world.bot.token}`,
        `Bot ${t}`,
        `Bearer ${t}x`,
        `Bearer ${tid}.`,
        `Bearer ${tid}`,
        `Bearer .${t.split('.')[1]}`,
        'Bearer .',
        'Bearer ..........',
        `Bearer ${LONG(10_000, 'a')}`,
        `Bearer ${LONG(20_000, 'a')}`,
        `Bot ${world.bot.id}.${LONG(43, 'x')}`,
        'Bearer 01ARZ3NDEKTSV4RRFFQ69G5FAV.c2VjcmV0',
        `Bearer  ${t}`,
        `Bearer\t${t}`,
        ` Bearer ${t}`,
        `Bearer ${t} extra`,
        'Bearer %00',
        'Bearer null',
        'Bearer undefined',
        `Bearer ${world.main.webhookToken}`,
        'Bearer é',
        'Bearer 😀',
        Buffer.from([0x42, 0x65, 0x61, 0x72, 0x65, 0x72, 0x20, 0xff, 0xfe]),
        'Bearer a\u0000b',
        'Token abc',
        `Bot Bot ${world.bot.token}`,
        'Bearer {"id":1}',
        `Bearer ${t},Bearer ${t}`,
      ]);
    }
  }
}

/** Headers that fetch cannot send, or that break the framing: raw only. */
function rawHeaderMutation(g: Gen, headers: Array<[string, string | Buffer]>): Partial<FuzzRequest> {
  const { rng } = g;
  const op = rng.pick([
    'dup-auth',
    'dup-content-type',
    'dup-content-length',
    'cl-and-te',
    'bad-chunks',
    'chunked',
    'short-content-length',
    'stalled-body',
    'expect-continue',
    'expect-garbage',
    'no-host',
    'garbage-host',
    'header-utf8',
    'header-invalid-utf8',
    'header-nul',
    'header-name-space',
    'obs-fold',
    'http10',
    'http2-version',
    'bad-version',
    'huge-header',
    'many-headers',
    'te-garbage',
    'upgrade-h2c',
  ]);
  g.notes.push(`raw:${op}`);
  g.structural = true;
  switch (op) {
    case 'dup-auth':
      headers.push(['Authorization', `Bearer ${g.destructive ? g.rng.pick(g.world.spareSessions) : g.world.member.token}`]);
      return {};
    case 'dup-content-type':
      headers.push(['Content-Type', rng.pick(['text/plain', 'application/json', 'multipart/form-data; boundary=x'])]);
      return {};
    case 'dup-content-length':
      headers.push(['Content-Length', '1'], ['Content-Length', '2']);
      return {};
    case 'cl-and-te':
      headers.push(['Content-Length', '5'], ['Transfer-Encoding', 'chunked']);
      return {};
    case 'bad-chunks':
      return { chunked: true, badChunks: true };
    case 'chunked':
      return { chunked: true };
    case 'short-content-length':
      // The rest of the body is left over on a connection that closes after the answer.
      return { contentLength: 1 };
    case 'stalled-body':
      // Promises more than it sends: the server's request timeout must answer (408).
      g.notes.push('stalls');
      return { contentLength: 100 + g.rng.int(0, 1000) };
    case 'expect-continue':
      headers.push(['Expect', '100-continue']);
      return {};
    case 'expect-garbage':
      headers.push(['Expect', rng.pick(['garbage', '200-ok', ''])]);
      return {};
    case 'no-host':
      return {};
    case 'garbage-host':
      headers.push(['Host', rng.pick(['', 'evil.example', 'a b', '[::1', '%00', LONG(300, 'h')])]);
      return {};
    case 'header-utf8':
      headers.push(['X-Fuzz', 'é😀 unicode']);
      return {};
    case 'header-invalid-utf8':
      headers.push(['X-Fuzz', Buffer.from([0xff, 0xfe, 0xc0])]);
      return {};
    case 'header-nul':
      headers.push(['X-Fuzz', 'a\u0000b']);
      return {};
    case 'header-name-space':
      headers.push([rng.pick(['X Fuzz', 'X-Fuzz:', 'é', '']), 'v']);
      return {};
    case 'obs-fold':
      headers.push(['X-Fuzz', 'first\r\n continued']);
      return {};
    case 'http10':
      return { version: 'HTTP/1.0' };
    case 'http2-version':
      return { version: 'HTTP/2.0' };
    case 'bad-version':
      return { version: rng.pick(['HTTP/1.2', 'HTTP/0.9', 'HTTX/1.1', 'HTTP/1.1 extra', 'http/1.1', '']) };
    case 'huge-header':
      headers.push(['X-Pad', LONG(rng.pick([8000, 20_000]))]);
      return {};
    case 'many-headers':
      for (let i = 0; i < 300; i++) headers.push([`X-H${i}`, 'v']);
      return {};
    case 'te-garbage':
      headers.push(['Transfer-Encoding', rng.pick(['gzip', 'chunked, gzip', 'identity', 'xchunked'])]);
      return {};
    default:
      headers.push(['Upgrade', 'h2c'], ['Connection', 'Upgrade, HTTP2-Settings'], ['HTTP2-Settings', 'AAMAAABkAARAAAAAAAIAAAAA']);
      return {};
  }
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const ODD_METHODS = ['TRACE', 'CONNECT', 'get', 'FOO', 'PROPFIND', 'SEARCH', 'M-SEARCH', 'PRI', 'QUERY', 'LINK', 'G ET', 'GET\u0000'];

// ---------------------------------------------------------------------------------------
// Requests

export interface GenOptions {
  seed: string;
  phase: string;
  world: FuzzWorld;
  routes: Route[];
}

/** Weight of a route in the draw: registration and login cost a scrypt each. */
const routeWeight = (r: Route) => (r.path.startsWith('/auth/') && r.method === 'POST' ? 0.6 : 1);

export function generate(opts: GenOptions, index: number): FuzzRequest {
  const rng = new Rng(`${opts.seed}/${opts.phase}/${index}`);
  const kind = rng.weighted<string>([
    [94, 'route'],
    [3, 'unrouted'],
    [3, 'gateway'],
  ]);
  if (kind === 'gateway') return gatewayHandshake(opts, index, rng);
  if (kind === 'unrouted') return unrouted(opts, index, rng);

  const route = rng.weighted(opts.routes.map((r) => [routeWeight(r), r] as const));
  const method = rng.chance(0.9)
    ? route.method
    : rng.chance(0.7)
      ? rng.pick(METHODS.filter((m) => m !== route.method))
      : rng.pick(ODD_METHODS);
  const destructive = method === 'DELETE' || endsSessions(route);
  const g: Gen = {
    rng,
    world: opts.world,
    scene: destructive || rng.chance(0.05) ? rng.pick(opts.world.sacrificial) : opts.world.main,
    destructive,
    notes: [],
    structural: method !== route.method,
  };
  if (method !== route.method) g.notes.push(`method:${method}`);

  const filled = fillPath(g, route);
  if (!filled.routes) g.structural = true;
  let path: string | Buffer = filled.path;
  if (rng.chance(0.1)) path = mutatePath(g, filled.path);
  if (rng.chance(0.22)) path = typeof path === 'string' ? path + query(g) : Buffer.concat([path, Buffer.from(query(g))]);

  const headers: Array<[string, string | Buffer]> = [];
  const auth = authHeader(g, route);
  if (auth !== undefined) headers.push(['Authorization', auth]);

  const isGithub = route.path.endsWith('/github');
  const githubEvent = isGithub || rng.chance(0.02) ? rng.pick(GITHUB_EVENTS) : undefined;
  if (githubEvent !== undefined && rng.chance(0.9)) headers.push(['X-GitHub-Event', githubEvent]);

  const wantsBody = ['POST', 'PUT', 'PATCH'].includes(method) ? rng.chance(0.93) : rng.chance(0.12);
  let body: Body = {};
  if (wantsBody) body = makeBody(g, route, githubEvent);
  else if (rng.chance(0.3)) {
    // docs/api.md#authentication: bots send a JSON content type on every call, body or not.
    body = {
      body: rng.chance(0.5) ? Buffer.alloc(0) : undefined,
      contentType: rng.pick(['application/json', 'text/plain', 'multipart/form-data']),
    };
    g.notes.push('content-type-without-body');
  }
  let contentType = body.contentType;
  if (contentType !== undefined && rng.chance(0.12)) {
    contentType = rng.pick(CONTENT_TYPES);
    g.notes.push(`content-type:${contentType}`);
  }
  if (contentType !== undefined && (contentType !== '' || rng.chance(0.5))) headers.push(['Content-Type', contentType]);
  headers.push(...(body.extraHeaders ?? []));

  if (rng.chance(0.25)) headers.push(['Accept', rng.pick(ACCEPTS)]);
  // Idempotency fingerprints walk the whole body: worth pairing with every kind of body.
  if (method === 'POST' && rng.chance(route.path.includes('messages') || route.path.startsWith('/webhooks/') ? 0.5 : 0.1)) {
    headers.push(['Idempotency-Key', rng.pick([`k-${rng.string(8)}`, '', ' ', LONG(256, 'k'), 'é', 'a\tb', 'same-key', 'same-key'])]);
  }
  if (rng.chance(0.05)) {
    headers.push(
      rng.pick<[string, string]>([
        ['X-Forwarded-For', 'not an ip, 999.1.1.1'],
        ['X-Forwarded-Proto', 'gopher'],
        ['Cookie', 'session=garbage; a=%FF'],
        ['Origin', 'https://evil.example'],
        ['Range', 'bytes=abc'],
        ['Range', 'bytes=999999999-'],
        ['If-None-Match', '*'],
        ['If-Modified-Since', 'yesterday'],
        ['X-Audit-Log-Reason', '%FF'],
        ['Accept-Encoding', 'gzip;q=nope'],
        ['X-HTTP-Method-Override', 'DELETE'],
        ['Content-Language', '😀'],
      ]),
    );
  }

  const req: FuzzRequest = {
    phase: opts.phase,
    index,
    target: route.key,
    method,
    path,
    headers,
    body: body.body,
    raw: false,
    notes: g.notes,
  };
  if (rng.chance(0.06)) Object.assign(req, rawHeaderMutation(g, headers));
  // Node refuses a request head over 16 KiB before any route sees it.
  const headSize = path.length + headers.reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
  if (headSize > 8000) g.structural = true;
  // Now and then raw even when fetch could do it: the same request over both transports.
  req.raw = !fetchCanSend(req) || rng.chance(0.03);
  if (!g.structural) req.reaches = route.key;
  return req;
}

function unrouted(opts: GenOptions, index: number, rng: Rng): FuzzRequest {
  const method = rng.weighted<string>([
    [6, 'GET'],
    [1, 'HEAD'],
    [2, 'POST'],
    [1, 'PUT'],
    [1, 'DELETE'],
    [1, 'OPTIONS'],
    [0.5, 'PATCH'],
  ]);
  const path = rng.chance(0.8) ? rng.pick(UNROUTED_PATHS) : `/${rng.string(rng.int(1, 20), 'abcdefghijklmnopqrstuvwxyz-_.~')}`;
  const headers: Array<[string, string | Buffer]> = [];
  if (rng.chance(0.5)) headers.push(['Accept', rng.pick(ACCEPTS)]);
  if (rng.chance(0.3)) headers.push(['Authorization', `Bearer ${opts.world.owner.token}`]);
  const body = method !== 'GET' && method !== 'HEAD' && rng.chance(0.5) ? Buffer.from('{"x":1}') : undefined;
  if (body) headers.push(['Content-Type', 'application/json']);
  const req: FuzzRequest = { phase: opts.phase, index, target: 'unrouted', method, path, headers, body, raw: false, notes: ['unrouted'] };
  req.raw = !fetchCanSend(req) || rng.chance(0.1);
  return req;
}

/** The WebSocket handshake of `/gateway`, broken in one way or another (raw: fetch cannot upgrade). */
function gatewayHandshake(opts: GenOptions, index: number, rng: Rng): FuzzRequest {
  const notes: string[] = ['gateway'];
  const headers: Array<[string, string | Buffer]> = [];
  const key = rng.pick(['dGhlIHNhbXBsZSBub25jZQ==', '', 'short', LONG(100, 'A'), '!!!!', 'dGhlIHNhbXBsZSBub25jZQ']);
  const upgrade = rng.pick(['websocket', 'WebSocket', 'h2c', 'garbage', '']);
  const connection = rng.pick(['Upgrade', 'upgrade, keep-alive', 'keep-alive', '']);
  const version = rng.pick(['13', '8', '', 'abc', '13, 8']);
  if (rng.chance(0.9)) headers.push(['Upgrade', upgrade]);
  if (rng.chance(0.9)) headers.push(['Connection', connection]);
  if (rng.chance(0.85)) headers.push(['Sec-WebSocket-Key', key]);
  if (rng.chance(0.85)) headers.push(['Sec-WebSocket-Version', version]);
  if (rng.chance(0.2)) headers.push(['Sec-WebSocket-Protocol', rng.pick(['', 'a b', 'json, json', '\u00e9'])]);
  if (rng.chance(0.2))
    headers.push([
      'Sec-WebSocket-Extensions',
      rng.pick(['permessage-deflate; client_max_window_bits=99', 'garbage;;', 'permessage-deflate; server_max_window_bits']),
    ]);
  if (rng.chance(0.2)) headers.push(['Authorization', `Bearer ${opts.world.owner.token}`]);
  const path = rng.pick([
    '/gateway',
    '/gateway',
    '/gateway?v=10&encoding=json',
    '/gateway/',
    '/gatewayx',
    '/Gateway',
    '/gateway?%FF',
    '/%67ateway',
  ]);
  const method = rng.chance(0.9) ? 'GET' : rng.pick(['POST', 'HEAD', 'PUT']);
  notes.push(`ws:upgrade=${upgrade},conn=${connection},version=${version}`);
  return { phase: opts.phase, index, target: 'gateway', method, path, headers, raw: true, notes };
}
