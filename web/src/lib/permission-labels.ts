/**
 * Section 9's permissions in plain language, for the roles editor and a channel's
 * permissions editor. Grouped as people think of them; `channel` marks the ones a channel
 * overwrite can change (the others are server-wide only).
 */
import type { Permission } from '@parley/protocol/permissions';

export interface PermissionInfo {
  id: Permission;
  label: string;
  help: string;
  /** Can be allowed or denied per channel. */
  channel: boolean;
}

export interface PermissionGroup {
  title: string;
  items: PermissionInfo[];
}

export const PERMISSION_GROUPS: PermissionGroup[] = [
  {
    title: 'General',
    items: [
      { id: 'VIEW_CHANNEL', label: 'See channels', help: 'See channels and read what is posted in them from now on.', channel: true },
      {
        id: 'READ_MESSAGE_HISTORY',
        label: 'Read earlier messages',
        help: 'Scroll back through what was said before they arrived.',
        channel: true,
      },
      { id: 'CREATE_INVITE', label: 'Invite people', help: 'Create invite links to this server.', channel: true },
      {
        id: 'USE_APPLICATION_COMMANDS',
        label: 'Use bot commands',
        help: 'Use the slash commands and buttons that bots offer.',
        channel: true,
      },
    ],
  },
  {
    title: 'Messages',
    items: [
      { id: 'SEND_MESSAGES', label: 'Send messages', help: 'Post in channels.', channel: true },
      { id: 'ADD_REACTIONS', label: 'Add reactions', help: 'React to messages with emoji.', channel: true },
      { id: 'ATTACH_FILES', label: 'Attach files', help: 'Upload files and images with their messages.', channel: true },
      { id: 'EMBED_LINKS', label: 'Show link previews', help: 'Links they post show a preview.', channel: true },
      {
        id: 'MENTION_EVERYONE',
        label: 'Notify everyone',
        help: 'Use @everyone and @here, and mention roles that are not mentionable.',
        channel: true,
      },
    ],
  },
  {
    title: 'Moderation',
    items: [
      {
        id: 'MANAGE_MESSAGES',
        label: 'Delete other people’s messages',
        help: 'Remove any message, not only their own.',
        channel: true,
      },
      {
        id: 'KICK_MEMBERS',
        label: 'Remove members',
        help: 'Remove people whose roles are below theirs. They can rejoin with an invite.',
        channel: false,
      },
      {
        id: 'BAN_MEMBERS',
        label: 'Ban members',
        help: 'Remove people whose roles are below theirs and stop them from rejoining.',
        channel: false,
      },
      { id: 'VIEW_AUDIT_LOG', label: 'See the audit log', help: 'See who changed what in this server, and why.', channel: false },
    ],
  },
  {
    title: 'Management',
    items: [
      { id: 'MANAGE_CHANNELS', label: 'Manage channels', help: 'Create, rename, describe and delete channels.', channel: true },
      {
        id: 'MANAGE_ROLES',
        label: 'Manage roles',
        help: 'Create and edit roles below their own highest role, give them to people, and set channel permissions.',
        channel: true,
      },
      {
        id: 'MANAGE_SERVER',
        label: 'Manage the server',
        help: 'Rename the server, change its picture and description, and see its invites.',
        channel: false,
      },
      {
        id: 'ADMINISTRATOR',
        label: 'Administrator',
        help: 'Every permission, in every channel, whatever a channel says. Give it with care.',
        channel: false,
      },
    ],
  },
];

export const PERMISSION_INFO: Record<Permission, PermissionInfo> = Object.fromEntries(
  PERMISSION_GROUPS.flatMap((g) => g.items).map((i) => [i.id, i]),
) as Record<Permission, PermissionInfo>;

/** A role colour (RGB integer; 0 is none) as CSS, or undefined for none. */
export function roleColor(color: number): string | undefined {
  return color ? `#${color.toString(16).padStart(6, '0')}` : undefined;
}
