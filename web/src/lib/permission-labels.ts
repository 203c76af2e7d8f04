/**
 * The permissions of docs/permissions.md#the-bits in plain language, for the roles editor and a channel's
 * permissions editor. Grouped as people think of them; `channel` marks the ones a channel
 * overwrite can change (the others are server-wide only). The words are in the catalog
 * (`settings.permissions`), read when drawn: only server settings, whose chunk brings that
 * area, show them.
 */
import type { Permission } from '@parley/protocol/permissions';
import { t } from '../i18n';

export interface PermissionInfo {
  id: Permission;
  readonly label: string;
  readonly help: string;
  /** Can be allowed or denied per channel. */
  channel: boolean;
}

export interface PermissionGroup {
  readonly title: string;
  items: PermissionInfo[];
}

type GroupId = 'general' | 'messages' | 'threads' | 'moderation' | 'management';

function info(id: Permission, channel: boolean): PermissionInfo {
  return {
    id,
    channel,
    get label() {
      return t(`settings.permissions.${id}.label`);
    },
    get help() {
      return t(`settings.permissions.${id}.help`);
    },
  };
}

function group(id: GroupId, items: PermissionInfo[]): PermissionGroup {
  return {
    get title() {
      return t(`settings.permissions.groups.${id}`);
    },
    items,
  };
}

export const PERMISSION_GROUPS: PermissionGroup[] = [
  group('general', [
    info('VIEW_CHANNEL', true),
    info('READ_MESSAGE_HISTORY', true),
    info('CREATE_INVITE', true),
    info('USE_APPLICATION_COMMANDS', true),
    info('CHANGE_NICKNAME', false),
  ]),
  group('messages', [
    info('SEND_MESSAGES', true),
    info('ADD_REACTIONS', true),
    info('ATTACH_FILES', true),
    info('EMBED_LINKS', true),
    info('MENTION_EVERYONE', true),
  ]),
  group('threads', [
    info('CREATE_PUBLIC_THREADS', true),
    info('CREATE_PRIVATE_THREADS', true),
    info('SEND_MESSAGES_IN_THREADS', true),
    info('MANAGE_THREADS', true),
  ]),
  group('moderation', [
    info('MANAGE_MESSAGES', true),
    info('MANAGE_NICKNAMES', false),
    info('KICK_MEMBERS', false),
    info('BAN_MEMBERS', false),
    info('VIEW_AUDIT_LOG', false),
  ]),
  group('management', [
    info('MANAGE_CHANNELS', true),
    info('MANAGE_ROLES', true),
    info('MANAGE_SERVER', false),
    info('ADMINISTRATOR', false),
  ]),
];

export const PERMISSION_INFO: Record<Permission, PermissionInfo> = Object.fromEntries(
  PERMISSION_GROUPS.flatMap((g) => g.items).map((i) => [i.id, i]),
) as Record<Permission, PermissionInfo>;

/** A role colour (RGB integer; 0 is none) as CSS, or undefined for none. */
export function roleColor(color: number): string | undefined {
  return color ? `#${color.toString(16).padStart(6, '0')}` : undefined;
}
