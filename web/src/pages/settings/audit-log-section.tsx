/**
 * The Audit log section of server settings (VIEW_AUDIT_LOG): each moderation or
 * configuration change as a sentence ("Alice banned Bob — spamming"), newest first, with
 * what changed on request; filtered by action and by person, paged with "Load more".
 */
import { Fragment, useCallback, useEffect, useId, useState, type ReactNode } from 'react';
import { displayName, type AuditLogEntry, type Server } from '../../api/types';
import { Avatar } from '../../components/avatar';
import { formatFull, formatMessageTime } from '../../lib/format';
import { PERMISSION_INFO } from '../../lib/permission-labels';
import { loadMembers } from '../../state/actions';
import { loadAuditLog, loadBans } from '../../state/moderation';
import { can, P, usePermissions } from '../../state/permissions';
import { useStore } from '../../state/store';
import { toastError } from '../../state/toasts';
import { AUDIT_ACTIONS, type AuditAction } from '@parley/protocol';
import { parsePermissions, permissionNamesOf } from '@parley/protocol/permissions';
import styles from './settings.module.css';
import own from './admin.module.css';
import { Trans } from 'react-i18next';
import { t } from '../../i18n';
import '../../i18n/settings';
import { useAction } from '../../lib/use-action';

const PAGE = 50;

/**
 * The plain name the filter shows for each action the service records (`AUDIT_ACTIONS` of
 * @parley/protocol): an action added there and not here is a type error.
 */
const actionName = (a: AuditAction): string => t(`settings.auditLog.actions.${a}`);
const actions = () => AUDIT_ACTIONS.map((a) => [a, actionName(a)] as const);

/** Names of the fields `changes` mentions, as a sentence says them. */
const FIELDS = new Set([
  'name',
  'icon',
  'description',
  'ownerId',
  'topic',
  'position',
  'permissions',
  'color',
  'hoist',
  'mentionable',
  'channelId',
  'avatar',
  'maxAge',
  'maxUses',
  'expiresAt',
  'deleteMessageSeconds',
  'deletedMessages',
  'type',
  'allow',
  'deny',
] as const);
type Field = typeof FIELDS extends Set<infer F> ? F : never;
const fieldName = (k: string): string | undefined => (FIELDS.has(k as Field) ? t(`settings.auditLog.fields.${k as Field}`) : undefined);

interface Names {
  user(id: string): string | undefined;
  role(id: string): string | undefined;
  channel(id: string): string | undefined;
}

type Changes = Record<string, unknown>;

function isChange(v: unknown): v is { old: unknown; new: unknown } {
  return !!v && typeof v === 'object' && 'old' in v && 'new' in v;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/** A string field of the changes, or the new (else old) side of a changed one. */
function text(changes: Changes, key: string, side: 'new' | 'old' = 'new'): string | undefined {
  const v = changes[key];
  if (typeof v === 'string') return v;
  if (isChange(v)) {
    const s = v[side] ?? v[side === 'new' ? 'old' : 'new'];
    return typeof s === 'string' ? s : undefined;
  }
  return undefined;
}

/** "a", "a and b", "a, b and c". */
function listOf(items: string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

const fieldsOf = (changes: Changes) =>
  Object.keys(changes)
    .filter((k) => isChange(changes[k]))
    .map((k) => fieldName(k) ?? k);

/** The sentence after the actor's name: "banned Bob", "created channel #news". */
function describe(entry: AuditLogEntry, names: Names, serverId: string): ReactNode {
  const c = entry.changes as Changes;
  const tid = entry.targetId ?? '';
  /** A person by id; `known` is the name the entry recorded, for someone who has left. */
  const user = (id: string, known?: string) => {
    const n = names.user(id) ?? known;
    return n ? (
      <strong>{n}</strong>
    ) : (
      <strong className="mono" title={t('settings.auditLog.noLongerAMember')}>
        {id || t('settings.auditLog.someone')}
      </strong>
    );
  };
  const role = (id: string, fallback?: string) => {
    const n = id === serverId ? '@everyone' : (names.role(id) ?? fallback);
    return n ? <strong>{n}</strong> : <strong className="mono">{id}</strong>;
  };
  const channel = (id: string, fallback?: string) => {
    const n = names.channel(id) ?? fallback;
    return n ? <strong>#{n}</strong> : <strong className="mono">{id || t('settings.auditLog.aChannel')}</strong>;
  };
  const roleObject = isObject(c.role) ? c.role : {};
  const roleName = typeof roleObject.name === 'string' ? roleObject.name : text(c, 'name');
  const changed = fieldsOf(c);
  const their = (subject: ReactNode) =>
    changed.length ? (
      <Trans
        i18nKey="settings.auditLog.changedSubjectSListof"
        values={{ listOf: listOf(changed) }}
        components={{ subject: <>{subject}</> }}
      />
    ) : (
      <Trans i18nKey="settings.auditLog.changedSubject" components={{ subject: <>{subject}</> }} />
    );
  switch (entry.action) {
    case 'server_update': {
      const owner = c.ownerId;
      if (isChange(owner) && typeof owner.new === 'string')
        return <Trans i18nKey="settings.auditLog.transferredTheServerTo" components={{ user: <>{user(owner.new)}</> }} />;
      const name = c.name;
      if (isChange(name) && changed.length === 1) return <>{t('settings.auditLog.renamedTheServerTo', { string: String(name.new) })}</>;
      return changed.length
        ? t('settings.auditLog.changedTheServerS', { listOf: listOf(changed) })
        : t('settings.auditLog.changedTheServerSettings');
    }
    case 'channel_create':
      return <Trans i18nKey="settings.auditLog.channelCreate" components={{ channel: <>{channel(tid, text(c, 'name'))}</> }} />;
    case 'channel_update': {
      const name = c.name;
      if (isChange(name) && changed.length === 1)
        return (
          <Trans
            i18nKey="settings.auditLog.channelRename"
            values={{ old: String(name.old) }}
            components={{ b: <strong />, channel: <>{channel(tid, String(name.new))}</> }}
          />
        );
      return their(channel(tid, text(c, 'name')));
    }
    case 'channel_delete':
      return <Trans i18nKey="settings.auditLog.channelDelete" components={{ channel: <>{channel(tid, text(c, 'name'))}</> }} />;
    case 'overwrite_update':
    case 'overwrite_delete': {
      const target = c.type === 'member' ? user(tid) : role(tid);
      const where = channel(typeof c.channelId === 'string' ? c.channelId : '');
      return entry.action === 'overwrite_update' ? (
        <Trans i18nKey="settings.auditLog.changedThePermissionsOf" components={{ target: <>{target}</>, where: <>{where}</> }} />
      ) : (
        <Trans i18nKey="settings.auditLog.removedThePermissionSettings" components={{ target: <>{target}</>, where: <>{where}</> }} />
      );
    }
    case 'role_create':
      return <Trans i18nKey="settings.auditLog.createdRoleRole" components={{ role: <>{role(tid, roleName)}</> }} />;
    case 'role_update': {
      const name = c.name;
      if (isChange(name) && changed.length === 1)
        return (
          <Trans
            i18nKey="settings.auditLog.roleRename"
            values={{ old: String(name.old) }}
            components={{ b: <strong />, role: <>{role(tid, String(name.new))}</> }}
          />
        );
      return their(<Trans i18nKey="settings.auditLog.roleRole" components={{ role: <>{role(tid, roleName)}</> }} />);
    }
    case 'role_delete':
      return <Trans i18nKey="settings.auditLog.deletedRoleRole" components={{ role: <>{role(tid, roleName)}</> }} />;
    case 'member_role_add':
    case 'member_role_remove': {
      const parts = { role: <>{role(typeof c.roleId === 'string' ? c.roleId : '')}</>, user: <>{user(tid)}</> };
      return entry.action === 'member_role_add' ? (
        <Trans i18nKey="settings.auditLog.memberRoleAdd" components={parts} />
      ) : (
        <Trans i18nKey="settings.auditLog.memberRoleRemove" components={parts} />
      );
    }
    case 'member_nick':
      return <Trans i18nKey="settings.auditLog.memberNick" components={{ user: <>{user(tid)}</> }} />;
    case 'member_kick':
      return <Trans i18nKey="settings.auditLog.memberKick" components={{ user: <>{user(tid, text(c, 'name'))}</> }} />;
    case 'member_ban':
      return <Trans i18nKey="settings.auditLog.memberBan" components={{ user: <>{user(tid, text(c, 'name'))}</> }} />;
    case 'member_unban':
      return <Trans i18nKey="settings.auditLog.unbannedUser" components={{ user: <>{user(tid)}</> }} />;
    case 'bot_add':
      return <Trans i18nKey="settings.auditLog.addedTheBotUser" components={{ user: <>{user(tid)}</> }} />;
    case 'bot_update':
      return <Trans i18nKey="settings.auditLog.botUpdate" components={{ user: <>{user(tid)}</> }} />;
    case 'bot_remove':
      return <Trans i18nKey="settings.auditLog.removedTheBotUser" components={{ user: <>{user(tid)}</> }} />;
    case 'invite_create':
      return <>{t('settings.auditLog.createdAnInvite')}</>;
    case 'invite_delete':
      return typeof c.inviterId === 'string' && c.inviterId !== entry.actorId ? (
        <Trans i18nKey="settings.auditLog.revokedAnInviteCreated" components={{ user: <>{user(c.inviterId)}</> }} />
      ) : (
        t('settings.auditLog.revokedAnInvite')
      );
    case 'webhook_create': {
      const name = text(c, 'name') ?? tid;
      return typeof c.channelId === 'string' ? (
        <Trans
          i18nKey="settings.auditLog.webhookCreateIn"
          values={{ name }}
          components={{ b: <strong />, channel: <>{channel(c.channelId)}</> }}
        />
      ) : (
        <Trans i18nKey="settings.auditLog.webhookCreate" values={{ name }} components={{ b: <strong /> }} />
      );
    }
    case 'webhook_update': {
      const name = text(c, 'name');
      return their(
        <Trans
          i18nKey="settings.auditLog.webhookSubject"
          components={{ name: name ? <strong>{name}</strong> : <strong className="mono">{tid}</strong> }}
        />,
      );
    }
    case 'webhook_delete':
      return <Trans i18nKey="settings.auditLog.webhookDelete" values={{ name: text(c, 'name') ?? tid }} components={{ b: <strong /> }} />;
    case 'message_delete': {
      const author = <>{user(typeof c.authorId === 'string' ? c.authorId : '')}</>;
      return typeof c.channelId === 'string' ? (
        <Trans i18nKey="settings.auditLog.messageDeleteIn" components={{ user: author, channel: <>{channel(c.channelId)}</> }} />
      ) : (
        <Trans i18nKey="settings.auditLog.messageDelete" components={{ user: author }} />
      );
    }
    case 'message_bulk_delete': {
      const where = { channel: <>{channel(tid)}</> };
      if (typeof c.count !== 'number')
        return tid ? (
          <Trans i18nKey="settings.auditLog.bulkDeleteSeveralIn" components={where} />
        ) : (
          t('settings.auditLog.bulkDeleteSeveral')
        );
      return tid ? (
        <Trans i18nKey="settings.auditLog.bulkDeleteIn" count={c.count} components={where} />
      ) : (
        t('settings.auditLog.bulkDelete', { count: c.count })
      );
    }
    case 'message_pin':
    case 'message_unpin': {
      const pin = entry.action === 'message_pin';
      if (typeof c.channelId !== 'string')
        return <>{pin ? t('settings.auditLog.pinnedAMessage') : t('settings.auditLog.unpinnedAMessage')}</>;
      const where = { channel: <>{channel(c.channelId)}</> };
      return pin ? (
        <Trans i18nKey="settings.auditLog.pinIn" components={where} />
      ) : (
        <Trans i18nKey="settings.auditLog.unpinIn" components={where} />
      );
    }
    default:
      return tid ? (
        <Trans
          i18nKey="settings.auditLog.otherTo"
          values={{ action: entry.action }}
          components={{ code: <code />, user: <>{user(tid)}</> }}
        />
      ) : (
        <Trans i18nKey="settings.auditLog.other" values={{ action: entry.action }} components={{ code: <code /> }} />
      );
  }
}

/** One value of `changes`, readable: names for ids, permission names for bitfields. */
function readable(key: string, v: unknown, names: Names): string {
  if (v === null || v === undefined || v === '') return 'none';
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'string') {
    if ((key === 'permissions' || key === 'allow' || key === 'deny') && /^\d+$/.test(v)) {
      const bits = parsePermissions(v) ?? 0n;
      const list = permissionNamesOf(bits).map((p) => PERMISSION_INFO[p]?.label ?? p);
      return list.length ? list.join(', ') : 'none';
    }
    if (key === 'channelId') return names.channel(v) ? `#${names.channel(v)}` : v;
    if (key === 'roleId') return names.role(v) ?? v;
    if (key === 'ownerId' || key === 'authorId' || key === 'inviterId') return names.user(v) ?? v;
    if (key === 'expiresAt' || key === 'createdAt') return formatFull(v) || v;
    return v;
  }
  if (typeof v === 'number' && key === 'color') return v ? `#${v.toString(16).padStart(6, '0')}` : 'none';
  if (typeof v === 'number' && key === 'maxUses') return v === 0 ? 'unlimited' : String(v);
  if (typeof v === 'number' && (key === 'maxAge' || key === 'deleteMessageSeconds'))
    return v === 0 ? (key === 'maxAge' ? 'never' : 'none') : duration(v);
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v);
}

/** Seconds as the largest whole unit: "7 days", "1 hour", "90 seconds". */
function duration(seconds: number): string {
  for (const [unit, size] of [
    ['day', 86_400],
    ['hour', 3600],
    ['minute', 60],
  ] as const) {
    if (seconds >= size && seconds % size === 0) return `${seconds / size} ${unit}${seconds === size ? '' : 's'}`;
  }
  return `${seconds} second${seconds === 1 ? '' : 's'}`;
}

const HIDDEN = new Set(['id', 'serverId', 'managed']);

function label(key: string): string {
  const n = fieldName(key) ?? key.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return n.charAt(0).toUpperCase() + n.slice(1);
}

/** The rows of the "Changes" detail: objects (a created role) are shown field by field. */
function changeRows(changes: Changes): [string, unknown][] {
  const rows: [string, unknown][] = [];
  for (const [k, v] of Object.entries(changes)) {
    if (isObject(v) && !isChange(v)) {
      for (const [k2, v2] of Object.entries(v)) if (!HIDDEN.has(k2)) rows.push([k2, v2]);
    } else if (!HIDDEN.has(k)) rows.push([k, v]);
  }
  return rows;
}

function ChangesDetail({ changes, names }: { changes: Changes; names: Names }) {
  const rows = changeRows(changes);
  if (rows.length === 0) return null;
  return (
    <details className={own.changes}>
      <summary>{t('settings.auditLog.changes')}</summary>
      <dl>
        {rows.map(([k, v]) => (
          <Fragment key={k}>
            <dt>{label(k)}</dt>
            <dd>
              {isChange(v) ? (
                <>
                  <span className={own.old}>{readable(k, v.old, names)}</span>
                  <span className={own.arrow} aria-hidden="true">
                    →
                  </span>
                  <span className="visually-hidden">{t('settings.auditLog.changedTo')} </span>
                  {readable(k, v.new, names)}
                </>
              ) : (
                readable(k, v, names)
              )}
            </dd>
          </Fragment>
        ))}
      </dl>
    </details>
  );
}

export function AuditLogSection({ server }: { server: Server }) {
  const members = useStore((s) => s.members[server.id]);
  const roles = useStore((s) => s.roles[server.id]);
  const channels = useStore((s) => s.channels[server.id]);
  const bans = useStore((s) => s.bans[server.id]);
  const me = useStore((s) => s.me);
  const bits = usePermissions(server.id);
  const [action, setAction] = useState('');
  const [actorId, setActorId] = useState('');
  const [entries, setEntries] = useState<AuditLogEntry[] | null>(null);
  const [more, setMore] = useState(false);
  const { busy, error, run } = useAction();
  const id = useId();

  useEffect(() => {
    if (!members) loadMembers(server.id).catch(toastError);
  }, [members, server.id]);

  // Banned people are no longer members: the bans list still knows their names.
  const canBan = can(bits, P.BAN_MEMBERS);
  useEffect(() => {
    if (canBan && !bans) loadBans(server.id).catch(() => undefined);
  }, [canBan, bans, server.id]);

  const fetchPage = useCallback(
    async (before?: string) => {
      await run(async () => {
        const page = await loadAuditLog(server.id, {
          action: action || undefined,
          actorId: actorId || undefined,
          before,
          limit: PAGE,
        });
        setEntries((prev) => (before ? [...(prev ?? []), ...page] : page));
        setMore(page.length === PAGE);
      });
    },
    [server.id, action, actorId, run],
  );

  useEffect(() => {
    setEntries(null);
    void fetchPage();
  }, [fetchPage]);

  const names: Names = {
    user: (uid) => {
      const m = members?.find((x) => x.id === uid);
      if (m) return displayName(m);
      if (me?.id === uid) return displayName(me);
      const b = bans?.find((x) => x.user.id === uid);
      return b ? displayName(b.user) : undefined;
    },
    role: (rid) => roles?.find((r) => r.id === rid)?.name,
    channel: (cid) => channels?.find((c) => c.id === cid)?.name,
  };

  const people = [...(members ?? [])].sort((a, b) => displayName(a).localeCompare(displayName(b)));
  const filtered = !!action || !!actorId;
  const last = entries?.[entries.length - 1];

  return (
    <section className={styles.settingsSection} aria-labelledby="audit-log-title">
      <h2 id="audit-log-title">{t('settings.auditLog.auditLog')}</h2>
      <p className={styles.sectionIntro}>{t('settings.auditLog.everyChangeToServer', { server: server.name })}</p>
      <div className={own.toolbar}>
        <div className="field">
          <label htmlFor={`${id}-action`} className="field-label">
            {t('settings.auditLog.action')}
          </label>
          <select id={`${id}-action`} className="input" value={action} onChange={(e) => setAction(e.target.value)}>
            <option value="">{t('settings.auditLog.allActions')}</option>
            {actions().map(([value, name]) => (
              <option key={value} value={value}>
                {name}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-actor`} className="field-label">
            {t('settings.auditLog.doneBy')}
          </label>
          <select id={`${id}-actor`} className="input" value={actorId} onChange={(e) => setActorId(e.target.value)}>
            <option value="">{t('settings.auditLog.anyone')}</option>
            {people.map((m) => (
              <option key={m.id} value={m.id}>
                {displayName(m)}
                {m.bot ? t('settings.auditLog.bot') : ''}
              </option>
            ))}
          </select>
        </div>
        {filtered && (
          <button
            type="button"
            className="button secondary"
            onClick={() => {
              setAction('');
              setActorId('');
            }}
          >
            {t('settings.auditLog.clearFilters')}
          </button>
        )}
      </div>
      {error && (
        <p className="field-error" role="alert">
          {t('settings.auditLog.couldNotLoad', { error })}{' '}
          <button type="button" className="link-button" onClick={() => void fetchPage(entries?.length ? last?.id : undefined)}>
            {t('settings.auditLog.tryAgain')}
          </button>
        </p>
      )}
      {!entries && !error && <p className="empty-note">{t('settings.auditLog.loading')}</p>}
      {entries && entries.length === 0 && (
        <div className={own.emptyState}>
          <strong>{filtered ? t('settings.auditLog.nothingMatchesTheseFilters') : t('settings.auditLog.nothingRecordedYet')}</strong>
          <p>{filtered ? t('settings.auditLog.tryAnotherActionOr') : t('settings.auditLog.changesToSettingsRoles')}</p>
        </div>
      )}
      {entries && entries.length > 0 && (
        <ul className={own.list} aria-label={t('settings.auditLog.auditLogEntries')}>
          {entries.map((e) => {
            const actor = names.user(e.actorId) ?? e.actorId;
            const avatar = members?.find((m) => m.id === e.actorId)?.avatar ?? (me?.id === e.actorId ? me.avatar : null);
            return (
              <li key={e.id} className={own.entry} data-entry-id={e.id} data-action={e.action}>
                <Avatar id={e.actorId} name={actor} src={avatar} size={32} />
                <div className={own.entryBody}>
                  <p className={own.sentence}>
                    <strong>{actor}</strong> {describe(e, names, server.id)}
                    {e.reason && <span className={own.entryReason}> — {e.reason}</span>}
                  </p>
                  <div className={own.entryMeta}>
                    <time dateTime={e.createdAt} title={formatFull(e.createdAt)}>
                      {formatMessageTime(e.createdAt)}
                    </time>
                    <ChangesDetail changes={e.changes as Changes} names={names} />
                  </div>
                </div>
              </li>
            );
          })}
        </ul>
      )}
      {entries && more && last && (
        <div className={own.more}>
          <button type="button" className="button secondary" disabled={busy} onClick={() => void fetchPage(last.id)}>
            {busy ? t('settings.auditLog.loading') : t('settings.auditLog.loadMore')}
          </button>
        </div>
      )}
    </section>
  );
}
