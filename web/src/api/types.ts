/**
 * Shapes of the Parley API, as the web client reads and sends them: the types of
 * @parley/protocol's schemas, which the service serializes and validates with (see
 * docs/api.md). Only `import type` from the schema modules, so no schema code reaches the
 * bundle.
 */
import type {
  BotSelf,
  Bot as WireBot,
  CreatedBot,
  CreatedWebhook,
  Member as WireMember,
  PermissionName,
  PublicUser,
  ReadyServer,
  SelfUser,
  Server as WireServer,
  Session,
  Invite as WireInvite,
  Webhook as WireWebhook,
} from '@parley/protocol';
import { PERMISSION_NAMES } from '@parley/protocol';

export type {
  Attachment,
  AuditLogEntry,
  Button,
  Command,
  CommandChoice,
  CommandOption,
  CommandOptionValues,
  InteractionAccepted,
  InteractionStateEvent,
  InteractionModalEvent,
  MessageInteraction,
  ModalField,
  TextInput,
  Select,
  SelectOption,
  AuthSession,
  BotProfile,
  Ban,
  Channel,
  DmChannel,
  Embed,
  GatewayEvent,
  Instance,
  InvitePreview,
  Message,
  Overwrite,
  Reaction,
  ReadState,
  Role,
  UserSettings,
  Thread,
  ThreadMember,
  ForumTag,
} from '@parley/protocol';

/** What the client sends: request bodies, exactly as the service's routes validate them. */
export type {
  AddBotBody,
  AttachmentRef,
  BanBody,
  ChangePasswordBody,
  CreateInteractionBody,
  CreateInviteBody,
  CreateRoleBody,
  CreateChannelBody,
  ReorderChannelsBody,
  OverwriteBody,
  UpdateChannelBody,
  UpdateRoleBody,
  UpdateServerBody,
  UpdateSettingsBody,
  CreateBotBody,
  CreateWebhookBody,
  CredentialsBody,
  DeleteAccountBody,
  EditMessageBody,
  NameBody,
  OpenDmBody,
  RegisterBody,
  SendMessageBody,
  SetBotPermissionsBody,
  UpdateBotBody,
  UpdateMeBody,
  UpdateWebhookBody,
} from '@parley/protocol';

/**
 * A member as the client keeps it: from `GET /servers/{id}/members`, or from a
 * `MEMBER_ADD` event, whose user carries no `joinedAt`.
 */
export type Member = Omit<WireMember, 'joinedAt'> & Partial<Pick<WireMember, 'joinedAt'>>;

/**
 * A person or bot; a person's own account (`/users/@me`, login) adds `username`,
 * `displayName` and `createdAt`.
 */
export type User = PublicUser & Partial<Pick<SelfUser, 'username' | 'displayName' | 'createdAt'>>;

/** What `GET` and `PATCH /users/@me` answer: a person or a bot. */
export type Me = SelfUser | BotSelf;

/**
 * A server; the ones `ready` lists carry their channels, roles and the identity's own
 * roles (the store keeps those apart, under `channels`, `roles` and `myRoles`).
 */
export type Server = WireServer & Partial<Pick<ReadyServer, 'channels' | 'roles' | 'memberRoles' | 'permissions'>>;

/** An invite as `GET /servers/{id}/invites` lists it. */
export type Invite = WireInvite;

export type Permission = PermissionName;
export const ALL_PERMISSIONS: readonly Permission[] = PERMISSION_NAMES;

export type Author = PublicUser;

/** A webhook; the response that creates it also carries its token and URL. */
export type Webhook = WireWebhook & Partial<Pick<CreatedWebhook, 'token' | 'url'>>;

/** A bot; the response that creates it also carries its token. */
export type Bot = WireBot & Partial<Pick<CreatedBot, 'token'>>;

export type { Attachment as UploadResult } from '@parley/protocol';
export type AuthResult = Session;

/** A user's or member's name, whichever field the server used. */
export function displayName(u: { name?: string; username?: string | null } | null | undefined): string {
  return u?.name ?? u?.username ?? 'Unknown';
}

/** A member's name in their server: their nickname there, else their display name. */
export function memberName(m: { name?: string; username?: string | null; nick?: string | null } | null | undefined): string {
  return m?.nick || displayName(m);
}
