/**
 * The Roles section of server settings: the server's roles, highest first (`@everyone`
 * last), reordered by dragging a row's handle or from the keyboard, and the editor of the
 * selected role. Whoever is not the owner changes only roles below their own highest role,
 * and grants only permissions they hold; the service refuses the rest (403 role_hierarchy).
 */
import { useCallback, useEffect, useId, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';
import { describeError } from '../../api/client';
import type { Role, Server } from '../../api/types';
import { confirm } from '../../components/dialog';
import { PromptDialog } from '../../components/forms';
import { PlusIcon } from '../../components/icons';
import { roleColor } from '../../lib/permission-labels';
import { nameColor, nameColorStyle } from '../../lib/name-color';
import roleNameCss from '../../components/role-name.module.css';
import { loadMembers, loadRoles } from '../../state/actions';
import { createRole, updateRole } from '../../state/moderation';
import { topPosition, usePermissions } from '../../state/permissions';
import { useStore } from '../../state/store';
import { toast, toastError } from '../../state/toasts';
import { LockIcon, RoleEditor } from './role-editor';
import css from './roles-section.module.css';
import styles from './settings.module.css';
import { Trans } from 'react-i18next';
import { t } from '../../i18n';
import '../../i18n/settings';

const belowYours = () => t('settings.roles.belowYours');

interface Drag {
  id: string;
  pointerId: number;
  startY: number;
  /** The dragged row's centre when the drag began. */
  centre: number;
  /** Centres of the other movable-list rows, top first. */
  mids: number[];
  from: number;
  /** The dragged row's height and the gap below it: how far the others step aside. */
  height: number;
  minIndex: number;
  index: number;
  moved: boolean;
}

export function RolesSection({ server }: { server: Server }) {
  const serverId = server.id;
  const roles = useStore((s) => s.roles[serverId]);
  const members = useStore((s) => s.members[serverId]);
  const meId = useStore((s) => s.me?.id) ?? '';
  const mine = useStore((s) => s.myRoles[serverId]);
  const held = usePermissions(serverId);
  const owner = server.ownerId === meId;
  const top = useMemo(() => topPosition(server, roles, { id: meId, roles: mine ?? [] }), [server, roles, meId, mine]);
  const hintId = useId();

  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const [announcement, setAnnouncement] = useState('');
  const [moveError, setMoveError] = useState<string | null>(null);
  const [moving, setMoving] = useState<string | null>(null);
  const [dragView, setDragView] = useState<{ id: string; dy: number; index: number; from: number; height: number } | null>(null);
  /** Order shown while moves are on their way (ids, highest first, `@everyone` not included). */
  const [pending, setPending] = useState<string[] | null>(null);
  const [focusEditor, setFocusEditor] = useState(0);

  const dirty = useRef(false);
  const onDirtyChange = useCallback((d: boolean) => {
    dirty.current = d;
  }, []);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const rows = useRef(new Map<string, HTMLLIElement>());
  const handles = useRef(new Map<string, HTMLButtonElement>());
  const drag = useRef<Drag | null>(null);
  /** The handle to give focus back to after a keyboard move re-renders the list. */
  const refocus = useRef<string | null>(null);
  const queue = useRef<Promise<void>>(Promise.resolve());
  const inFlight = useRef(0);
  const pendingRef = useRef<string[] | null>(null);

  // A bot's managed role arrives with the bot, whose MEMBER_ADD lists no roles: the member
  // list is read again whenever the managed roles change, so the bot is counted under its own.
  const managedKey = (roles ?? [])
    .filter((r) => r.managed)
    .map((r) => r.id)
    .join();
  useEffect(() => {
    void managedKey;
    loadMembers(serverId).catch(toastError);
  }, [serverId, managedKey]);

  const everyone = roles?.find((r) => r.id === serverId);
  const ranked = useMemo(() => {
    const stored = (roles ?? []).filter((r) => r.id !== serverId);
    if (!pending) return stored;
    const byId = new Map(stored.map((r) => [r.id, r]));
    const shown = pending.flatMap((id) => byId.get(id) ?? []);
    // A role created or deleted meanwhile: the stored order until the moves land.
    return shown.length === stored.length ? shown : stored;
  }, [roles, serverId, pending]);
  const n = ranked.length;
  /** The highest list index (0 is the top) a role may be moved to: positions below `top`. */
  const minIndex = Number.isFinite(top) ? Math.max(0, n - top + 1) : 0;

  const counts = useMemo(() => {
    if (!members) return undefined;
    const c = new Map<string, number>();
    for (const m of members) for (const r of m.roles ?? []) c.set(r, (c.get(r) ?? 0) + 1);
    return c;
  }, [members]);
  const countOf = (role: Role) => (role.id === serverId ? members?.length : counts ? (counts.get(role.id) ?? 0) : undefined);

  const lockedReason = (role: Role): string | null => {
    if (owner || role.id === serverId) return null;
    if (role.position < top) return null;
    return role.position === top
      ? t('settings.roles.lockedYourHighest', { role: role.name })
      : t('settings.roles.lockedAboveYours', { role: role.name });
  };
  const movable = (role: Role) => role.id !== serverId && (owner || role.position < top);

  const selected = (selectedId && roles?.find((r) => r.id === selectedId)) || null;

  useEffect(() => {
    if (selectedId && roles && !roles.some((r) => r.id === selectedId)) {
      if (dirty.current) toast(t('settings.roles.theRoleYouWere'), 'error');
      setSelectedId(null);
    }
  }, [roles, selectedId]);

  useEffect(() => {
    if (focusEditor) headingRef.current?.focus();
  }, [focusEditor]);

  // A moved row can lose focus as the list reorders: give it back to its handle.
  useLayoutEffect(() => {
    const id = refocus.current;
    if (!id) return;
    refocus.current = null;
    const active = document.activeElement;
    if (!active || active === document.body) handles.current.get(id)?.focus();
  });

  const select = async (role: Role) => {
    if (role.id === selectedId) {
      setFocusEditor((f) => f + 1);
      return;
    }
    if (
      dirty.current &&
      !(await confirm({
        title: t('settings.roles.discardUnsavedChanges'),
        body: <p>{t('settings.roles.unsavedChanges', { role: selected?.name ?? t('settings.roles.thisRole') })}</p>,
        confirmLabel: t('settings.roles.discardChanges'),
        danger: true,
      }))
    )
      return;
    dirty.current = false;
    setSelectedId(role.id);
    setFocusEditor((f) => f + 1);
  };

  /** Moves `role` to list index `to` (0 is the top), counted without the role itself. */
  const move = (role: Role, to: number) => {
    const current = pendingRef.current ?? ranked.map((r) => r.id);
    const from = current.indexOf(role.id);
    if (from < 0) return;
    const rest = current.filter((id) => id !== role.id);
    const index = Math.min(Math.max(to, minIndex), rest.length);
    if (index === from) {
      if (to < minIndex) setAnnouncement(t('settings.roles.cannotGoHigher', { role: role.name }));
      return;
    }
    rest.splice(index, 0, role.id);
    pendingRef.current = rest;
    setPending(rest);
    setMoveError(null);
    setAnnouncement(t('settings.roles.movedTo', { role: role.name, position: index + 1, total: rest.length }));
    const position = rest.length - index;
    inFlight.current++;
    queue.current = queue.current
      .then(() => updateRole(role, { position }))
      .then(
        () => undefined,
        (err) => {
          setMoveError(t('settings.roles.notMovedError', { role: role.name, error: describeError(err) }));
          setAnnouncement(t('settings.roles.notMoved', { role: role.name }));
        },
      )
      .finally(async () => {
        if (--inFlight.current > 0) return;
        // The moves are in: the stored order (kept by ROLE_UPDATE events) takes over.
        await loadRoles(serverId).catch(() => undefined);
        if (inFlight.current === 0) {
          pendingRef.current = null;
          setPending(null);
        }
      });
  };

  const onHandleKey = (e: KeyboardEvent, role: Role, index: number) => {
    const up = e.key === 'ArrowUp';
    if (up || e.key === 'ArrowDown') {
      if (!e.altKey && moving !== role.id) return;
      e.preventDefault();
      refocus.current = role.id;
      move(role, index + (up ? -1 : 1));
    } else if (e.key === ' ' || e.key === 'Enter') {
      e.preventDefault();
      if (moving === role.id) {
        setMoving(null);
        setAnnouncement(t('settings.roles.atPosition', { role: role.name, position: index + 1, total: n }));
      } else {
        setMoving(role.id);
        setAnnouncement(t('settings.roles.moving', { role: role.name, position: index + 1, total: n }));
      }
    } else if (e.key === 'Escape' && moving === role.id) {
      e.preventDefault();
      setMoving(null);
      setAnnouncement(t('settings.roles.atPosition', { role: role.name, position: index + 1, total: n }));
    }
  };

  const onPointerDown = (e: PointerEvent<HTMLButtonElement>, role: Role, index: number) => {
    if (e.button !== 0) return;
    const self = rows.current.get(role.id)?.getBoundingClientRect();
    if (!self) return;
    e.preventDefault();
    e.currentTarget.setPointerCapture(e.pointerId);
    const mids = ranked
      .filter((r) => r.id !== role.id)
      .map((r) => {
        const rect = rows.current.get(r.id)?.getBoundingClientRect();
        return rect ? rect.top + rect.height / 2 : 0;
      });
    drag.current = {
      id: role.id,
      pointerId: e.pointerId,
      startY: e.clientY,
      centre: self.top + self.height / 2,
      mids,
      from: index,
      height: self.height + 2,
      minIndex,
      index,
      moved: false,
    };
  };

  const onPointerMove = (e: PointerEvent<HTMLButtonElement>) => {
    const d = drag.current;
    if (!d || e.pointerId !== d.pointerId) return;
    const dy = e.clientY - d.startY;
    if (!d.moved && Math.abs(dy) < 4) return;
    d.moved = true;
    const centre = d.centre + dy;
    d.index = Math.min(Math.max(d.mids.filter((m) => m < centre).length, d.minIndex), d.mids.length);
    setDragView({ id: d.id, dy, index: d.index, from: d.from, height: d.height });
  };

  const endDrag = (e: PointerEvent<HTMLButtonElement>, commit: boolean) => {
    const d = drag.current;
    if (!d || e.pointerId !== d.pointerId) return;
    drag.current = null;
    setDragView(null);
    const role = ranked.find((r) => r.id === d.id);
    if (commit && d.moved && role && d.index !== d.from) move(role, d.index);
  };

  if (!roles || !everyone) {
    return (
      <section className={styles.settingsSection} aria-labelledby="roles-title">
        <h2 id="roles-title">{t('settings.roles.roles')}</h2>
        <p className="empty-note">{t('settings.roles.loadingRoles')}</p>
      </section>
    );
  }

  /** While a row is dragged, the rows between where it was and where it would land step aside. */
  const shiftOf = (index: number): number => {
    if (!dragView || index >= n) return 0;
    const { from, index: to, height } = dragView;
    if (from < index && index <= to) return -height;
    if (to <= index && index < from) return height;
    return 0;
  };
  const myTop = !owner && Number.isFinite(top) ? roles.find((r) => r.position === top && (mine ?? []).includes(r.id)) : undefined;

  const row = (role: Role, index: number) => {
    const isEveryone = role.id === serverId;
    const color = roleColor(role.color);
    const count = countOf(role);
    const canMove = movable(role);
    const locked = lockedReason(role) !== null;
    const dragged = dragView?.id === role.id;
    const shift = dragged ? dragView.dy : shiftOf(index);
    return (
      <li
        key={role.id}
        ref={(el) => {
          if (el) rows.current.set(role.id, el);
          else rows.current.delete(role.id);
        }}
        className={css.roleRow}
        data-selected={selectedId === role.id || undefined}
        data-dragging={dragged || undefined}
        data-drag-active={(dragView && !dragged) || undefined}
        data-moving={moving === role.id || undefined}
        style={shift ? { transform: `translateY(${shift}px)` } : undefined}
        data-role-id={role.id}
      >
        {canMove ? (
          <button
            type="button"
            ref={(el) => {
              if (el) handles.current.set(role.id, el);
              else handles.current.delete(role.id);
            }}
            className={css.handle}
            aria-label={t('settings.roles.moveRole', { role: role.name })}
            aria-describedby={hintId}
            aria-pressed={moving === role.id}
            title={t('settings.roles.dragToReorderOr')}
            onKeyDown={(e) => onHandleKey(e, role, index)}
            onBlur={(e) => {
              if (e.relatedTarget && moving === role.id) setMoving(null);
            }}
            onPointerDown={(e) => onPointerDown(e, role, index)}
            onPointerMove={onPointerMove}
            onPointerUp={(e) => endDrag(e, true)}
            onPointerCancel={(e) => endDrag(e, false)}
          >
            <GripIcon />
          </button>
        ) : (
          <span className={css.handleSpace} title={isEveryone ? t('settings.roles.everyoneIsAlwaysLast') : belowYours()}>
            {locked && !isEveryone && <LockIcon />}
          </span>
        )}
        <button
          type="button"
          className={css.roleButton}
          aria-current={selectedId === role.id ? 'true' : undefined}
          onClick={() => void select(role)}
        >
          <span className={css.dot} style={{ background: color }} data-none={!color || undefined} aria-hidden="true" />
          <span
            className={color ? `${css.roleName} ${roleNameCss.colored}` : css.roleName}
            style={nameColorStyle(nameColor(role.color))}
            data-colored={color ? '' : undefined}
            data-role-name
          >
            {isEveryone ? t('settings.roles.everyone') : role.name}
          </span>
          {role.managed && (
            <span className={css.botChip} title={t('settings.roles.managedByABot')}>
              {t('settings.roles.bot')}
              <span className="visually-hidden">{t('settings.roles.managedByABotSuffix')}</span>
            </span>
          )}
          {locked && !isEveryone && <span className="visually-hidden">{t('settings.roles.aboveWhatYouCan')}</span>}
          {count !== undefined && (
            <span className={css.count}>
              <Trans
                i18nKey="settings.roles.memberCountHidden"
                count={count}
                components={{ hidden: <span className="visually-hidden" /> }}
              />
              <PersonIcon />
            </span>
          )}
        </button>
      </li>
    );
  };

  return (
    <section className={`${styles.settingsSection} ${css.section}`} aria-labelledby="roles-title">
      <h2 id="roles-title">{t('settings.roles.roles')}</h2>
      <p className={styles.sectionIntro}>{t('settings.roles.rolesGivePeoplePermissions')}</p>
      <div className={css.layout}>
        <div className={css.listPane}>
          <div className={css.listHead}>
            <h3 className={css.paneTitle}>{t('settings.roles.count', { count: n + 1 })}</h3>
            <button type="button" className="button primary small" onClick={() => setCreating(true)}>
              <PlusIcon size={16} /> {t('settings.roles.createRole')}
            </button>
          </div>
          {myTop && (
            <p className={css.yourTop}>
              <Trans
                i18nKey="settings.roles.yourHighest"
                components={{
                  role: (
                    <strong className={myTop.color ? roleNameCss.colored : undefined} style={nameColorStyle(nameColor(myTop.color))}>
                      {myTop.name}
                    </strong>
                  ),
                }}
              />
            </p>
          )}
          <ul className={css.roleList} aria-label={t('settings.roles.rolesHighestFirst')}>
            {ranked.map((r, i) => row(r, i))}
            {row(everyone, n)}
          </ul>
          {moveError && (
            <p className="field-error" role="alert">
              {moveError}
            </p>
          )}
          <p id={hintId} className={css.dragHint}>
            {t('settings.roles.dragARoleBy')}
          </p>
          <div className="visually-hidden" aria-live="assertive" aria-atomic="true">
            {announcement}
          </div>
        </div>

        <div className={css.detailPane}>
          {selected ? (
            <RoleEditor
              key={selected.id}
              server={server}
              role={selected}
              memberCount={countOf(selected)}
              locked={lockedReason(selected)}
              held={held}
              headingRef={headingRef}
              onDirtyChange={onDirtyChange}
              onDeleted={() => {
                dirty.current = false;
                setSelectedId(null);
              }}
            />
          ) : (
            <div className={css.emptyPane}>
              <h3>{t('settings.roles.chooseARoleTo')}</h3>
              <p>{t('settings.roles.selectARoleTo', { server: server.name })}</p>
              <p>{t('settings.roles.giveRolesToPeople')}</p>
            </div>
          )}
        </div>
      </div>

      {creating && (
        <PromptDialog
          title={t('settings.roles.createARole')}
          label={t('settings.roles.roleName')}
          submitLabel="Create role"
          placeholder={t('settings.roles.moderators')}
          help="It starts just above @everyone with no extra permissions; choose them next."
          onClose={() => setCreating(false)}
          onSubmit={async (name) => {
            const role = await createRole(serverId, { name });
            toast(t('settings.roles.createdTheRoleRole', { role: role.name }));
            dirty.current = false;
            setSelectedId(role.id);
            setFocusEditor((f) => f + 1);
          }}
        />
      )}
    </section>
  );
}

function GripIcon() {
  return (
    <svg width={16} height={16} viewBox="0 0 16 16" fill="currentColor" aria-hidden="true" focusable="false">
      <circle cx="5.5" cy="3.5" r="1.4" />
      <circle cx="10.5" cy="3.5" r="1.4" />
      <circle cx="5.5" cy="8" r="1.4" />
      <circle cx="10.5" cy="8" r="1.4" />
      <circle cx="5.5" cy="12.5" r="1.4" />
      <circle cx="10.5" cy="12.5" r="1.4" />
    </svg>
  );
}

function PersonIcon() {
  return (
    <svg
      width={13}
      height={13}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={2.2}
      strokeLinecap="round"
      aria-hidden="true"
      focusable="false"
    >
      <circle cx="12" cy="8" r="4" />
      <path d="M4 21a8 8 0 0 1 16 0" />
    </svg>
  );
}
