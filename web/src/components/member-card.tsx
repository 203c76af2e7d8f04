/**
 * A member's profile card, opened from the member list or a message author's name: who
 * they are, when they joined, their roles, and the moderation the signed-in user may do
 * to them (give or take roles, kick, ban). Controls show only when the user's permissions
 * and place in the role hierarchy allow them; the service still decides.
 */
import { type FormEvent, useEffect, useId, useRef, useState, useSyncExternalStore } from 'react';
import { describeError } from '../api/client';
import type { Member, Role, Server } from '../api/types';
import { displayName } from '../api/types';
import { formatDate, hueFor } from '../lib/format';
import { nameColor, nameColorStyle, topColoredRole } from '../lib/name-color';
import { roleColor } from '../lib/permission-labels';
import { loadMembers, loadRoles } from '../state/actions';
import { openDm } from '../state/conversations';
import { navigate, paths } from '../router';
import { banMember, kickMember, setMemberRole } from '../state/moderation';
import { can, P, topPosition, usePermissions } from '../state/permissions';
import { blockUser, unblockUser, useBlocked } from '../state/blocks';
import { useStore } from '../state/store';
import { toast, toastError } from '../state/toasts';
import { Avatar, BotBadge } from './avatar';
import { Dialog, confirm } from './dialog';
import { CloseIcon, MessageIcon, PlusIcon } from './icons';
import dialogStyles from './dialog.module.css';
import styles from './member-card.module.css';
import roleName from './role-name.module.css';
import { t } from '../i18n';
import { useAction } from '../lib/use-action';

// ---------------------------------------------------------------- which card is open

interface CardTarget {
  serverId: string;
  userId: string;
}

let open: CardTarget | null = null;
const listeners = new Set<() => void>();
const emit = () => {
  for (const l of listeners) l();
};

/** Show a member's profile card (one at a time; the host in the chat page draws it). */
export function openMemberCard(serverId: string, userId: string): void {
  open = { serverId, userId };
  emit();
}

export function closeMemberCard(): void {
  if (!open) return;
  open = null;
  emit();
}

const inflight = new Map<string, Promise<Member[]>>();

/** Fetch a server's members, sharing a request already on its way (the list and the host both ask). */
export function refreshMembers(serverId: string): Promise<Member[]> {
  let p = inflight.get(serverId);
  if (!p) {
    p = loadMembers(serverId).finally(() => inflight.delete(serverId));
    inflight.set(serverId, p);
  }
  return p;
}

/**
 * Draws the open card for this server. Also makes sure the members and roles are loaded
 * even while the member list is hidden, since message authors' names take their colour
 * (and their card) from them.
 */
export function MemberCardHost({ server }: { server: Server }) {
  const target = useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => open,
  );
  const membersLoaded = useStore((s) => !!s.members[server.id]);
  const rolesLoaded = useStore((s) => !!s.roles[server.id]);
  useEffect(() => {
    if (!membersLoaded) refreshMembers(server.id).catch(toastError);
  }, [server.id, membersLoaded]);
  useEffect(() => {
    if (!rolesLoaded) loadRoles(server.id).catch(toastError);
  }, [server.id, rolesLoaded]);
  // Leaving the server's page closes its card.
  // biome-ignore lint/correctness/useExhaustiveDependencies(server.id): the cleanup runs when the server changes
  useEffect(() => closeMemberCard, [server.id]);
  if (!target || target.serverId !== server.id) return null;
  return <MemberCard key={target.userId} server={server} userId={target.userId} onClose={closeMemberCard} />;
}

// ---------------------------------------------------------------- the card

const DELETE_WINDOWS: { seconds: number; readonly label: string }[] = (
  [
    [0, 'none'],
    [3600, 'hour'],
    [86_400, 'day'],
    [604_800, 'week'],
  ] as const
).map(([seconds, key]) => ({
  seconds,
  get label() {
    return t(`members.deleteWindow.${key}`);
  },
}));

function MemberCard({ server, userId, onClose }: { server: Server; userId: string; onClose: () => void }) {
  const member = useStore((s) => s.members[server.id]?.find((m) => m.id === userId));
  const membersLoaded = useStore((s) => !!s.members[server.id]);
  const roles = useStore((s) => s.roles[server.id]);
  const me = useStore((s) => s.me);
  const myRoles = useStore((s) => s.myRoles[server.id]);
  const presence = useStore((s) => (userId === s.me?.id ? s.myStatus : (s.presence[userId] ?? 'offline')));
  const bits = usePermissions(server.id);
  const blocked = useBlocked(userId);
  const [action, setAction] = useState<'kick' | 'ban' | null>(null);
  const [menu, setMenu] = useState(false);
  const [busyRole, setBusyRole] = useState<string | null>(null);
  const [roleError, setRoleError] = useState<string | null>(null);
  const addButton = useRef<HTMLButtonElement>(null);
  const menuRef = useRef<HTMLDivElement>(null);

  // Gone (kicked, banned, left) while the card was open: nothing left to show.
  useEffect(() => {
    if (membersLoaded && !member) onClose();
  }, [membersLoaded, member, onClose]);

  useEffect(() => {
    if (menu) menuRef.current?.querySelector<HTMLButtonElement>('button')?.focus();
  }, [menu]);

  if (!member) return null;

  const name = displayName(member);
  const meId = me?.id ?? '';
  const isSelf = member.id === meId;
  const isOwner = member.id === server.ownerId;
  const myTop = topPosition(server, roles, { id: meId, roles: myRoles ?? [] });
  const theirTop = topPosition(server, roles, member);
  // Kicks and bans: never yourself or the owner; anyone else only when their highest role
  // is strictly below yours (the owner is above every role, so the owner may act on all).
  const outranks = !isSelf && !isOwner && theirTop < myTop;
  const canKick = outranks && can(bits, P.KICK_MEMBERS);
  const canBan = outranks && can(bits, P.BAN_MEMBERS);
  // Roles: on someone below you, or on yourself (the trivial case, such as the owner
  // giving themselves a coloured role); only roles below your highest, never `@everyone`
  // or a bot's own (managed) role.
  const canEditRoles = can(bits, P.MANAGE_ROLES) && (outranks || isSelf);
  const manageable = (r: Role) => r.id !== server.id && !r.managed && r.position < myTop;
  const theirRoles = (roles ?? []).filter((r) => member.roles?.includes(r.id));
  // Giving a role grants its permissions: only one whose every permission you hold
  // (docs/permissions.md, "The hierarchy"; the service refuses the rest).
  const givable = (r: Role) => manageable(r) && (BigInt(r.permissions) & ~bits) === 0n;
  const addable = canEditRoles ? (roles ?? []).filter((r) => givable(r) && !member.roles?.includes(r.id)) : [];
  const color = nameColor(topColoredRole(roles, member.roles)?.color);
  const username = isSelf && me?.username && me.username !== name ? me.username : null;

  const closeMenu = () => {
    setMenu(false);
    addButton.current?.focus();
  };

  const setRole = async (role: Role, on: boolean) => {
    setBusyRole(role.id);
    setRoleError(null);
    try {
      await setMemberRole(server.id, member.id, role.id, on, member.roles ?? []);
      if (on) closeMenu();
    } catch (err) {
      setRoleError(t(on ? 'members.couldNotGive' : 'members.couldNotTake', { role: role.name, error: describeError(err) }));
    } finally {
      setBusyRole(null);
    }
  };

  return (
    <>
      <Dialog
        title={name}
        className={styles.card}
        onClose={() => {
          // Escape closes the open role menu first, then the card.
          if (menu) closeMenu();
          else onClose();
        }}
      >
        <div className={styles.cardBody} data-member-card={member.id}>
          <div className={styles.banner} style={{ background: color?.raw ?? `hsl(${hueFor(member.id)} 45% 52%)` }} aria-hidden="true" />
          <div className={styles.identity}>
            <span className={styles.avatarRing}>
              <Avatar id={member.id} name={name} src={member.avatar} size={80} status={presence} />
            </span>
            <div className={styles.identityText}>
              <p className={color ? `${styles.bigName} ${roleName.colored}` : styles.bigName} style={nameColorStyle(color)}>
                {name}
              </p>
              {username && <p className={styles.username}>@{username}</p>}
              <p className={styles.marks}>
                {member.bot && <BotBadge />}
                {isOwner && (
                  <span className={styles.ownerMark}>
                    <span aria-hidden="true">★</span> {t('members.owner')}
                  </span>
                )}
                {isSelf && <span className={styles.youMark}>{t('members.you')}</span>}
              </p>
            </div>
          </div>

          {!isSelf && (
            <div className={styles.contactActions}>
              {!blocked && <MessageButton user={member} onOpened={onClose} />}
              {blocked && <span className={styles.blockedMark}>{t('members.blocked')}</span>}
              <BlockButton user={member} blocked={blocked} />
            </div>
          )}

          {member.joinedAt && (
            <section className={styles.cardSection}>
              <h3 className={styles.sectionTitle}>{t('members.memberSince')}</h3>
              <p className={styles.sectionText}>
                <time dateTime={member.joinedAt}>{formatDate(member.joinedAt)}</time>
              </p>
            </section>
          )}

          <section className={styles.cardSection} aria-labelledby={`roles-${member.id}`}>
            <h3 className={styles.sectionTitle} id={`roles-${member.id}`}>
              {t('members.roles')}
            </h3>
            {(theirRoles.length > 0 || addable.length > 0) && (
              <ul className={styles.chips}>
                {theirRoles.map((r) => (
                  <li key={r.id} className={styles.chip} data-role-id={r.id}>
                    <span className={styles.dot} style={{ background: roleColor(r.color) ?? 'var(--faint)' }} aria-hidden="true" />
                    <span className={styles.chipName}>{r.name}</span>
                    {r.managed && <span className="visually-hidden"> {t('members.thisBotSOwn')}</span>}
                    {canEditRoles && manageable(r) && (
                      <button
                        type="button"
                        className={styles.chipRemove}
                        aria-label={t('members.removeRoleR', { r: r.name })}
                        title={t('members.removeR', { r: r.name })}
                        disabled={busyRole !== null}
                        onClick={() => void setRole(r, false)}
                      >
                        <CloseIcon />
                      </button>
                    )}
                  </li>
                ))}
                {addable.length > 0 && (
                  <li>
                    <button
                      ref={addButton}
                      type="button"
                      className={styles.addRole}
                      aria-label={t('members.addRole')}
                      title={t('members.addRole')}
                      aria-expanded={menu}
                      aria-controls={`role-menu-${member.id}`}
                      onClick={() => setMenu((v) => !v)}
                    >
                      <PlusIcon size={14} />
                    </button>
                  </li>
                )}
              </ul>
            )}
            {theirRoles.length === 0 && addable.length === 0 && (
              <p className={`empty-note ${styles.sectionText}`}>{t('members.noRoles')}</p>
            )}
            {menu && addable.length > 0 && (
              // biome-ignore lint/a11y: a group of buttons (not form fields); Escape closes it, its buttons take the other keys
              <div
                ref={menuRef}
                id={`role-menu-${member.id}`}
                className={styles.roleMenu}
                role="group"
                aria-label={t('members.rolesYouCanGive')}
                onKeyDown={(e) => {
                  if (e.key === 'Escape') {
                    e.preventDefault();
                    e.stopPropagation();
                    closeMenu();
                  } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
                    e.preventDefault();
                    const items = [...(menuRef.current?.querySelectorAll<HTMLButtonElement>('button') ?? [])];
                    const i = items.indexOf(document.activeElement as HTMLButtonElement);
                    const next = items[(i + (e.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length];
                    next?.focus();
                  }
                }}
              >
                <p className={styles.menuTitle}>{t('members.giveNameARole', { name })}</p>
                <ul>
                  {addable.map((r) => (
                    <li key={r.id}>
                      <button type="button" className={styles.menuItem} disabled={busyRole !== null} onClick={() => void setRole(r, true)}>
                        <span className={styles.dot} style={{ background: roleColor(r.color) ?? 'var(--faint)' }} aria-hidden="true" />
                        {r.name}
                      </button>
                    </li>
                  ))}
                </ul>
              </div>
            )}
            {roleError && (
              <p className="field-error" role="alert">
                {roleError}
              </p>
            )}
          </section>

          {(canKick || canBan) && (
            <footer className={styles.actions}>
              {canKick && (
                <button type="button" className="button secondary small" onClick={() => setAction('kick')}>
                  {t('members.kick')}
                </button>
              )}
              {canBan && (
                <button type="button" className="button danger small" onClick={() => setAction('ban')}>
                  {t('members.ban')}
                </button>
              )}
            </footer>
          )}
        </div>
      </Dialog>
      {/* Siblings of the card, not children: a nested dialog's Escape would close both. */}
      {action && (
        <RemoveDialog
          kind={action}
          server={server}
          member={member}
          onClose={() => setAction(null)}
          onDone={() => {
            setAction(null);
            onClose();
          }}
        />
      )}
    </>
  );
}

// ---------------------------------------------------------------- direct messages

/** Opens the DM with someone (creating it the first time) and goes there; a refusal is a toast. */
export async function messageUser(user: { id: string; name: string }): Promise<boolean> {
  try {
    const dm = await openDm(user);
    navigate(paths.dm(dm.id));
    return true;
  } catch (err) {
    toastError(err);
    return false;
  }
}

function MessageButton({ user, onOpened }: { user: Member; onOpened: () => void }) {
  const [busy, setBusy] = useState(false);
  return (
    <button
      type="button"
      className={`button primary small ${styles.messageButton}`}
      disabled={busy}
      onClick={async () => {
        setBusy(true);
        if (await messageUser(user)) onOpened();
        else setBusy(false);
      }}
    >
      <MessageIcon size={16} /> {t('members.message')}
    </button>
  );
}

/**
 * Block or unblock (docs/api.md#direct-messages, "What a block does"): blocking asks first,
 * saying what it does; unblocking undoes it at once.
 */
function BlockButton({ user, blocked }: { user: Member; blocked: boolean }) {
  const [busy, setBusy] = useState(false);
  const name = displayName(user);
  const act = async () => {
    if (!blocked) {
      const ok = await confirm({
        title: t('members.blockTitle', { name }),
        body: (
          <>
            <p>{t('members.blockIntro', { name })}</p>
            <ul className={styles.blockEffects}>
              <li>{t('members.blockNoNewDm')}</li>
              <li>{t('members.blockDmReadOnly')}</li>
              <li>{t('members.blockServers')}</li>
            </ul>
            <p>{t('members.blockUndo')}</p>
          </>
        ),
        confirmLabel: t('members.block'),
        danger: true,
      });
      if (!ok) return;
    }
    setBusy(true);
    try {
      if (blocked) await unblockUser(user.id);
      else await blockUser(user);
      toast(t(blocked ? 'members.unblockedName' : 'members.blockedName', { name }));
    } catch (err) {
      toastError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <button type="button" className="button secondary small" disabled={busy} onClick={() => void act()}>
      {blocked ? t('members.unblock') : t('members.block')}
    </button>
  );
}

// ---------------------------------------------------------------- kick and ban

function RemoveDialog({
  kind,
  server,
  member,
  onClose,
  onDone,
}: {
  kind: 'kick' | 'ban';
  server: Server;
  member: Member;
  onClose: () => void;
  onDone: () => void;
}) {
  const name = displayName(member);
  const [reason, setReason] = useState('');
  const [deleteSeconds, setDeleteSeconds] = useState(0);
  const { busy, error, run } = useAction();
  const reasonId = useId();
  const windowId = useId();
  const ban = kind === 'ban';

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    await run(
      async () => {
        if (ban) await banMember(server.id, member.id, { reason: reason.trim() || undefined, deleteMessageSeconds: deleteSeconds });
        else await kickMember(server.id, member.id, reason);
        toast(
          ban
            ? t('members.nameWasBannedFrom', { name, server: server.name })
            : t('members.nameWasRemovedFrom', { name, server: server.name }),
        );
        onDone();
      },
      { stayBusy: true },
    );
  };

  return (
    <Dialog title={ban ? t('members.banName', { name }) : t('members.kickName', { name })} onClose={onClose}>
      <form className={`${dialogStyles.dialogBody} stack`} onSubmit={submit}>
        <p>
          {ban ? t('members.nameWillBeRemoved', { name, server: server.name }) : t('members.kickExplained', { name, server: server.name })}
        </p>
        <div className="field">
          <label className="field-label" htmlFor={reasonId}>
            {t('members.reasonOptional')}
          </label>
          <textarea
            id={reasonId}
            className={`input ${styles.reason}`}
            rows={2}
            maxLength={512}
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            aria-describedby={`${reasonId}-help`}
          />
          <span id={`${reasonId}-help`} className="hint">
            {ban ? t('members.reasonKeptWithBan') : t('members.reasonKept')}
          </span>
        </div>
        {ban && (
          <div className="field">
            <label className="field-label" htmlFor={windowId}>
              {t('members.deleteTheirMessagesFrom')}
            </label>
            <select id={windowId} className="input" value={deleteSeconds} onChange={(e) => setDeleteSeconds(Number(e.target.value))}>
              {DELETE_WINDOWS.map((w) => (
                <option key={w.seconds} value={w.seconds}>
                  {w.label}
                </option>
              ))}
            </select>
          </div>
        )}
        {error && (
          <p className="field-error" role="alert">
            {error}
          </p>
        )}
        <footer className={dialogStyles.dialogActions}>
          <button type="button" className="button secondary" onClick={onClose}>
            {t('members.cancel')}
          </button>
          <button type="submit" className={`button ${ban ? 'danger' : 'primary'}`} disabled={busy}>
            {busy
              ? ban
                ? t('members.banning')
                : t('members.kicking')
              : ban
                ? t('members.banName', { name })
                : t('members.kickName', { name })}
          </button>
        </footer>
      </form>
    </Dialog>
  );
}
