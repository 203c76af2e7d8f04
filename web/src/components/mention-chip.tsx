/**
 * Mentions in rendered text, as chips with names: `<@id>` (a member, opening their card),
 * `<@&id>` (a role, in its colour), `<#id>` (a channel, a link to it), `@everyone` and
 * `@here`. An id that names nothing known is shown as `@unknown-user`, `@deleted-role` or
 * `#deleted-channel`, never as the raw number.
 *
 * Names come from the message's own `mentions` first (the service resolved them when it
 * was sent), then from the store. The scope (which server, which users the message
 * named) comes from `MentionScope`; outside one, only the store is asked.
 */
import { createContext, type CSSProperties, type ReactNode, useContext } from 'react';
import type { Author, Channel } from '../api/types';
import { nameColor, nameColorStyle } from '../lib/name-color';
import type { MentionToken } from '../lib/mentions';
import { Link, paths } from '../router';
import { type State, useStore } from '../state/store';
import { MessageIcon } from './icons';
import { openMemberCard } from './member-card';
import styles from './mention-chip.module.css';
import { t } from '../i18n';

export interface MentionScopeValue {
  /** The server the text was written in; null in a DM. */
  serverId: string | null;
  /** The users the message pinged, as the service resolved them. */
  users?: readonly Author[];
}

const Scope = createContext<MentionScopeValue>({ serverId: null });

export function MentionScope({ value, children }: { value: MentionScopeValue; children: ReactNode }) {
  return <Scope.Provider value={value}>{children}</Scope.Provider>;
}

/** `plain`: a name to read, not to click (inside something that is itself clickable). */
export function MentionChip({ token, plain = false }: { token: MentionToken; plain?: boolean }) {
  switch (token.kind) {
    case 'user':
      return <UserChip id={token.id} plain={plain} />;
    case 'role':
      return <RoleChip id={token.id} />;
    case 'channel':
      return <ChannelChip id={token.id} plain={plain} />;
    default:
      return (
        <span className={styles.mention} data-mention={token.kind}>
          @{token.kind}
        </span>
      );
  }
}

function UserChip({ id, plain }: { id: string; plain: boolean }) {
  const scope = useContext(Scope);
  const serverId = scope.serverId ?? '';
  const member = useStore((s) => s.members[serverId]?.find((m) => m.id === id));
  const me = useStore((s) => (s.me?.id === id ? s.me : undefined));
  const name = scope.users?.find((u) => u.id === id)?.name ?? member?.name ?? me?.name;
  if (!name) {
    return (
      <span className={`${styles.mention} ${styles.unknown}`} data-mention="user">
        {t('mentionChip.unknownUser')}
      </span>
    );
  }
  if (!member || !scope.serverId || plain) {
    return (
      <span className={styles.mention} data-mention="user">
        @{name}
      </span>
    );
  }
  return (
    <button
      type="button"
      className={`${styles.mention} ${styles.interactive}`}
      data-mention="user"
      aria-haspopup="dialog"
      onClick={() => openMemberCard(serverId, id)}
    >
      @{name}
    </button>
  );
}

function RoleChip({ id }: { id: string }) {
  const { serverId } = useContext(Scope);
  const role = useStore((s) => (serverId ? s.roles[serverId]?.find((r) => r.id === id) : undefined));
  if (!role) {
    return (
      <span className={`${styles.mention} ${styles.unknown}`} data-mention="role">
        {t('mentionChip.deletedRole')}
      </span>
    );
  }
  const color = nameColor(role.color);
  return (
    <span
      className={color ? `${styles.mention} ${styles.roleColored}` : styles.mention}
      style={color ? ({ ...nameColorStyle(color), '--role-raw': color.raw } as CSSProperties) : undefined}
      data-mention="role"
    >
      @{role.name}
    </span>
  );
}

function findChannel(s: State, id: string): Channel | undefined {
  for (const list of Object.values(s.channels)) {
    const c = list.find((ch) => ch.id === id);
    if (c) return c;
  }
  return undefined;
}

function ChannelChip({ id, plain }: { id: string; plain: boolean }) {
  const channel = useStore((s) => findChannel(s, id));
  if (!channel) {
    return (
      <span className={`${styles.mention} ${styles.unknown}`} data-mention="channel">
        {t('mentionChip.deletedChannel')}
      </span>
    );
  }
  if (plain) {
    return (
      <span className={styles.mention} data-mention="channel">
        #{channel.name}
      </span>
    );
  }
  return (
    <Link to={paths.channel(channel.serverId, channel.id)} className={`${styles.mention} ${styles.interactive}`} data-mention="channel">
      #{channel.name}
    </Link>
  );
}

/**
 * A bare link to a message of this instance (`paths.message`, or Discord's form), drawn
 * as Discord draws one: its channel and a message mark, opening it in the app. A channel
 * the viewer does not see is not named (the quote under the message is theirs alone too).
 */
export function MessageLinkChip({ serverId, channelId, messageId }: { serverId: string | null; channelId: string; messageId: string }) {
  const channel = useStore((s) => findChannel(s, channelId));
  const dm = useStore((s) => (serverId === null ? s.dms[channelId] : undefined));
  const where = channel ? `#${channel.name}` : dm ? t('mentionChip.directMessage') : t('mentionChip.aMessage');
  return (
    <Link
      to={paths.message(serverId, channelId, messageId)}
      className={`${styles.mention} ${styles.interactive} ${styles.messageLink}`}
      data-mention="message"
      aria-label={t('mentionChip.messageIn', { where })}
    >
      {where}
      <span aria-hidden="true" className={styles.messageMark}>
        {' ›'}
        <MessageIcon size={13} />
      </span>
    </Link>
  );
}
