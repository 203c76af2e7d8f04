/** Objects as the API returns them. */

export interface PublicUser {
  id: string;
  name: string;
  bot: boolean;
  avatar: string | null;
}

export interface Attachment {
  url: string;
  filename: string;
  size: number;
  contentType: string;
}

/** A Discord-style embed; the webhook dialects validate it before it is stored. */
export type { Embed } from '../webhooks/types.js';
import type { Embed } from '../webhooks/types.js';

export interface Message {
  id: string;
  channelId: string;
  serverId: string;
  author: PublicUser;
  content: string;
  attachments: Attachment[];
  embeds: Embed[];
  reactions: Array<{ emoji: string; count: number; me: boolean }>;
  webhookId?: string;
  createdAt: string;
  editedAt: string | null;
}

export interface Server {
  id: string;
  name: string;
  ownerId: string;
  createdAt: string;
}

export interface Channel {
  id: string;
  serverId: string;
  name: string;
  createdAt: string;
}

export interface Webhook {
  id: string;
  serverId: string;
  channelId: string;
  name: string;
  avatar: string | null;
  createdBy: string;
  createdAt: string;
}

/** Who is calling: a person (with their session) or a bot. Webhooks are not callers of these routes. */
export interface Caller {
  id: string;
  name: string;
  bot: boolean;
  avatar: string | null;
  sessionId?: string;
}

export const PERMISSIONS = {
  READ_MESSAGES: 1,
  SEND_MESSAGES: 2,
  ADD_REACTIONS: 4,
  ATTACH_FILES: 8,
} as const;
export type PermissionName = keyof typeof PERMISSIONS;
export const ALL_PERMISSIONS = 15;
export const PERMISSION_NAMES = Object.keys(PERMISSIONS) as PermissionName[];

export function permissionBits(names: PermissionName[]): number {
  return names.reduce((bits, n) => bits | PERMISSIONS[n], 0);
}

export function permissionNames(bits: number): PermissionName[] {
  return PERMISSION_NAMES.filter((n) => (bits & PERMISSIONS[n]) !== 0);
}
