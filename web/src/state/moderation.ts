/**
 * Roles, overwrites, moderation, invites and server settings (docs/permissions.md): the API
 * call, then the store update. Gateway events bring the same changes to other sessions
 * (and to this one, where the answer carries less than the event).
 */
import { api, seg } from '../api/client';
import type {
  AuditLogEntry,
  Ban,
  BanBody,
  Channel,
  CreateInviteBody,
  CreateRoleBody,
  Invite,
  InvitePreview,
  OverwriteBody,
  Role,
  Server,
  UpdateChannelBody,
  UpdateRoleBody,
  UpdateServerBody,
} from '../api/types';
import { store } from './store';

const { dispatch } = store;

/** `X-Audit-Log-Reason` when the person gave one (URI-encoded, as Discord's clients send it). */
function reasonHeader(reason?: string): Record<string, string> | undefined {
  const r = reason?.trim();
  return r ? { 'X-Audit-Log-Reason': encodeURIComponent(r) } : undefined;
}

// ---------------------------------------------------------------- server

export async function updateServer(serverId: string, body: UpdateServerBody): Promise<Server> {
  const server = await api.patch<Server>(`/servers/${seg(serverId)}`, body);
  dispatch({ type: 'server/upsert', server });
  return server;
}

export async function deleteServer(serverId: string): Promise<void> {
  await api.delete(`/servers/${seg(serverId)}`);
  dispatch({ type: 'server/remove', serverId });
}

export async function updateChannel(channelId: string, body: UpdateChannelBody): Promise<Channel> {
  const channel = await api.patch<Channel>(`/channels/${seg(channelId)}`, body);
  dispatch({ type: 'channel/upsert', channel });
  return channel;
}

// ---------------------------------------------------------------- roles

export async function createRole(serverId: string, body: CreateRoleBody): Promise<Role> {
  const role = await api.post<Role>(`/servers/${seg(serverId)}/roles`, body);
  dispatch({ type: 'role/upsert', role });
  return role;
}

export async function updateRole(role: Role, body: UpdateRoleBody): Promise<Role> {
  const updated = await api.patch<Role>(`/servers/${seg(role.serverId)}/roles/${seg(role.id)}`, body);
  dispatch({ type: 'role/upsert', role: updated });
  return updated;
}

export async function deleteRole(role: Role): Promise<void> {
  await api.delete(`/servers/${seg(role.serverId)}/roles/${seg(role.id)}`);
  dispatch({ type: 'role/remove', serverId: role.serverId, roleId: role.id });
}

/** Give (`on`) or take a role; `current` is the member's roles before. */
export async function setMemberRole(
  serverId: string,
  userId: string,
  roleId: string,
  on: boolean,
  current: readonly string[],
): Promise<void> {
  const path = `/servers/${seg(serverId)}/members/${seg(userId)}/roles/${seg(roleId)}`;
  if (on) await api.put(path);
  else await api.delete(path);
  const roles = on ? [...new Set([...current, roleId])] : current.filter((id) => id !== roleId);
  dispatch({ type: 'member/roles', serverId, userId, roles });
}

// ---------------------------------------------------------------- channel overwrites

export async function putOverwrite(channelId: string, targetId: string, body: OverwriteBody): Promise<void> {
  await api.put(`/channels/${seg(channelId)}/permissions/${seg(targetId)}`, body);
}

export async function deleteOverwrite(channelId: string, targetId: string): Promise<void> {
  await api.delete(`/channels/${seg(channelId)}/permissions/${seg(targetId)}`);
}

// ---------------------------------------------------------------- members

export async function kickMember(serverId: string, userId: string, reason?: string): Promise<void> {
  await api.request('DELETE', `/servers/${seg(serverId)}/members/${seg(userId)}`, undefined, { headers: reasonHeader(reason) });
  dispatch({ type: 'member/remove', serverId, userId });
}

export async function banMember(serverId: string, userId: string, body: BanBody = {}): Promise<void> {
  await api.request('PUT', `/servers/${seg(serverId)}/bans/${seg(userId)}`, body, { headers: reasonHeader(body.reason) });
  dispatch({ type: 'member/remove', serverId, userId });
}

export async function loadBans(serverId: string): Promise<Ban[]> {
  const bans = await api.get<Ban[]>(`/servers/${seg(serverId)}/bans`);
  dispatch({ type: 'bans/set', serverId, bans });
  return bans;
}

export async function unban(serverId: string, userId: string): Promise<void> {
  await api.delete(`/servers/${seg(serverId)}/bans/${seg(userId)}`);
  dispatch({ type: 'ban/remove', serverId, userId });
}

// ---------------------------------------------------------------- invites

export function inviteLink(code: string): string {
  return `${location.origin}/invite/${encodeURIComponent(code)}`;
}

export function createInviteWith(serverId: string, body: CreateInviteBody): Promise<Invite> {
  return api.post<Invite>(`/servers/${seg(serverId)}/invites`, body);
}

export function listInvites(serverId: string): Promise<Invite[]> {
  return api.get<Invite[]>(`/servers/${seg(serverId)}/invites`);
}

export function revokeInvite(code: string): Promise<void> {
  return api.delete(`/invites/${seg(code)}`);
}

export function previewInvite(code: string): Promise<InvitePreview> {
  return api.get<InvitePreview>(`/invites/${seg(code)}`);
}

// ---------------------------------------------------------------- audit log

export interface AuditFilter {
  action?: string;
  actorId?: string;
  before?: string;
  limit?: number;
}

export function loadAuditLog(serverId: string, filter: AuditFilter = {}): Promise<AuditLogEntry[]> {
  const q = new URLSearchParams();
  if (filter.action) q.set('action', filter.action);
  if (filter.actorId) q.set('actorId', filter.actorId);
  if (filter.before) q.set('before', filter.before);
  if (filter.limit) q.set('limit', String(filter.limit));
  const qs = q.toString();
  return api.get<AuditLogEntry[]>(`/servers/${seg(serverId)}/audit-log${qs ? `?${qs}` : ''}`);
}
