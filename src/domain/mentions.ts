/**
 * Mentions (docs/api.md#messages): what a message's content pings, decided once when it is
 * sent. `<@id>` names a member, `<@&id>` a role, `@everyone` and `@here` the channel.
 * Discord's rules: `@everyone`, `@here` and roles that are not mentionable ping only with
 * MENTION_EVERYONE; `allowedMentions` narrows what pings. Mentions inside code (`x` or
 * fenced blocks) are text, not pings. Nothing is written per recipient: the message keeps
 * its mentions, and only users named one by one get an index row (`message_mentions`).
 */
import type { AllowedMentions } from '@parley/protocol';
import { badRequest } from '../errors.js';
import { isId } from '../ids.js';
import type { DomainContext } from './context.js';
import type { PublicUser } from './types.js';

/** What a message pings, as stored. */
export interface ResolvedMentions {
  users: PublicUser[];
  roles: string[];
  /** 0: none; 1: `@everyone`; 2: `@here`. */
  everyone: 0 | 1 | 2;
}

export const NONE: ResolvedMentions = { users: [], roles: [], everyone: 0 };

/** At most this many distinct users and roles are resolved per message (Discord's allowed list is 100). */
const MAX_TARGETS = 100;

const CODE = /```[\s\S]*?```|`[^`\n]*`/g;
const USER = /<@!?(\d{1,20})>/g;
const ROLE = /<@&(\d{1,20})>/g;
const EVERYONE = /(^|[^\w`])@(everyone|here)\b/g;

/** Cheap first look: content that cannot mention anything skips all the rest. */
export function mayMention(content: string): boolean {
  return content.includes('<@') || content.includes('@everyone') || content.includes('@here');
}

/** The mentions written in `content`, outside code. */
export function scanMentions(content: string): { users: string[]; roles: string[]; everyone: boolean; here: boolean } {
  const text = content.includes('`') ? content.replace(CODE, ' ') : content;
  const users = new Set<string>();
  const roles = new Set<string>();
  let everyone = false;
  let here = false;
  for (const m of text.matchAll(USER)) if (users.size < MAX_TARGETS && isId(m[1]!)) users.add(m[1]!);
  for (const m of text.matchAll(ROLE)) if (roles.size < MAX_TARGETS && isId(m[1]!)) roles.add(m[1]!);
  for (const m of text.matchAll(EVERYONE)) {
    if (m[2] === 'everyone') everyone = true;
    else here = true;
  }
  return { users: [...users], roles: [...roles], everyone, here };
}

interface Rules {
  users: boolean | Set<string>;
  roles: boolean | Set<string>;
  everyone: boolean;
  repliedUser: boolean;
}

/** Discord's `allowed_mentions` as rules; 400 when a kind is both parsed and listed. */
export function mentionRules(allowed: AllowedMentions | undefined): Rules {
  if (!allowed) return { users: true, roles: true, everyone: true, repliedUser: true };
  const parse = new Set(allowed.parse ?? []);
  if (parse.has('users') && allowed.users?.length) {
    throw badRequest('allowedMentions: "users" cannot be both in parse and listed in users');
  }
  if (parse.has('roles') && allowed.roles?.length) {
    throw badRequest('allowedMentions: "roles" cannot be both in parse and listed in roles');
  }
  return {
    users: parse.has('users') || new Set(allowed.users ?? []),
    roles: parse.has('roles') || new Set(allowed.roles ?? []),
    everyone: parse.has('everyone'),
    repliedUser: allowed.repliedUser ?? false,
  };
}

const allows = (rule: boolean | Set<string>, id: string) => (typeof rule === 'boolean' ? rule : rule.has(id));

export interface MentionInput {
  /** Null in a DM: only its recipients can be named there, and no roles or everyone. */
  serverId: string | null;
  channelId: string;
  authorId: string;
  content: string;
  /** The author may ping `@everyone`, `@here` and roles that are not mentionable (webhooks may). */
  mentionEveryone: boolean;
  allowed: AllowedMentions | undefined;
  /** The author of the message replied to, when it is a member to ping. */
  repliedAuthor?: string | null;
}

/**
 * What a message pings: the members it names (and the author replied to), the roles it
 * may ping, and `@everyone`/`@here` when allowed. Costs nothing for content that names no
 * one; otherwise one query for the users and one for the roles it names.
 */
export async function resolveMentions(ctx: DomainContext, input: MentionInput): Promise<ResolvedMentions> {
  const rules = mentionRules(input.allowed);
  const scanned = mayMention(input.content) ? scanMentions(input.content) : null;
  const userIds = new Set((scanned?.users ?? []).filter((id) => allows(rules.users, id)));
  if (input.repliedAuthor && rules.repliedUser) userIds.add(input.repliedAuthor);
  const roleIds = (scanned?.roles ?? []).filter((id) => allows(rules.roles, id));
  if (userIds.size === 0 && roleIds.length === 0 && !scanned?.everyone && !scanned?.here) return NONE;

  const db = ctx.store.db;
  const serverId = input.serverId;
  if (serverId === null) {
    const named = userIds.size === 0 ? [] : (await ctx.store.dms.recipients(db, [input.channelId])).filter((r) => userIds.has(r.id));
    const users = named.map((r) => ({ id: r.id, name: r.name, bot: r.bot === 1, avatar: r.avatar }));
    return { users: users.filter((u) => u.id !== input.authorId), roles: [], everyone: 0 };
  }
  const [users, roles] = await Promise.all([
    userIds.size === 0 ? [] : ctx.store.members.usersIn(db, serverId, [...userIds]),
    roleIds.length === 0 ? [] : ctx.store.roles.mentionableIn(db, serverId, roleIds),
  ]);
  let everyone: 0 | 1 | 2 = 0;
  if (rules.everyone && input.mentionEveryone) everyone = scanned?.everyone ? 1 : scanned?.here ? 2 : 0;
  return {
    // In the order the content names them; the author is not pinged by their own message.
    users: users.filter((u) => u.id !== input.authorId),
    roles: roles.filter((r) => r.mentionable === 1 || input.mentionEveryone).map((r) => r.id),
    everyone,
  };
}
