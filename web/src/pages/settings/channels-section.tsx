/**
 * The Channels section of server settings: create, rename, describe and delete channels
 * and categories, and put channels in categories (MANAGE_CHANNELS; docs/api.md#categories),
 * and each channel's and category's permissions (MANAGE_ROLES).
 */
import { useEffect, useId, useState, type FormEvent } from 'react';
import type { Channel, Server } from '../../api/types';
import { confirm } from '../../components/dialog';
import { normaliseChannelName } from '../../components/forms';
import { LockIcon } from '../../components/lock-icon';
import { channelGroups } from '../../lib/channel-order';
import { isPrivate } from '../../lib/overwrites';
import { useStore } from '../../state/store';
import { createChannel, deleteChannel, renameChannel } from '../../state/actions';
import { updateChannel } from '../../state/moderation';
import { can, P, usePermissions } from '../../state/permissions';
import { toast, toastError } from '../../state/toasts';
import { ChannelPermissions } from './channel-permissions';
import styles from './settings.module.css';
import own from './channels-section.module.css';
import sidebarStyles from '../../components/channel-sidebar.module.css';
import { Trans } from 'react-i18next';
import { t } from '../../i18n';
import '../../i18n/settings';
import { useAction } from '../../lib/use-action';

export function ChannelsSection({ server, channels }: { server: Server; channels: Channel[] }) {
  const bits = usePermissions(server.id);
  const manage = can(bits, P.MANAGE_CHANNELS);
  const roles = can(bits, P.MANAGE_ROLES);
  const categories = useStore((s) => s.categories[server.id]) ?? [];
  const [editing, setEditing] = useState<string | null>(null);
  if (editing && roles) return <ChannelPermissions server={server} channelId={editing} onBack={() => setEditing(null)} />;
  return (
    <ChannelList server={server} channels={channels} categories={categories} manage={manage} roles={roles} onPermissions={setEditing} />
  );
}

interface ListProps {
  server: Server;
  channels: Channel[];
  categories: Channel[];
  manage: boolean;
  roles: boolean;
  onPermissions: (channelId: string) => void;
}

function ChannelList({ server, channels, categories, manage, roles, onPermissions }: ListProps) {
  const [name, setName] = useState('');
  const [kind, setKind] = useState<'text' | 'category'>('text');
  const { busy, error, setError, run } = useAction();
  const id = useId();

  const create = async (e: FormEvent) => {
    e.preventDefault();
    // A category's name keeps its case and spaces, as Discord's do.
    const n = kind === 'category' ? name.trim() : normaliseChannelName(name);
    if (!n) return setError(t('settings.channels.enterName'));
    await run(async () => {
      await createChannel(server.id, n, kind === 'category' ? { type: 'category' } : {});
      setName('');
      toast(kind === 'category' ? t('settings.channels.categoryCreated', { n }) : t('settings.channels.nCreated', { n }));
    });
  };
  const groups = channelGroups(channels, categories);

  return (
    <section className={styles.settingsSection} aria-labelledby="channels-title">
      <h2 id="channels-title">{t('settings.channels.channels')}</h2>
      <p className={styles.sectionIntro}>{manage ? t('settings.channels.nameYourChannelsAnd') : t('settings.channels.chooseWhoCanSee')}</p>
      {manage && (
        <form className={styles.inlineForm} onSubmit={create} aria-label={t('settings.channels.createAChannel')}>
          <div className="field">
            <label htmlFor={`${id}-new`} className="field-label">
              {t('settings.channels.newChannelName')}
            </label>
            <input
              id={`${id}-new`}
              className="input"
              value={name}
              maxLength={100}
              placeholder={kind === 'category' ? t('settings.channels.categoryPlaceholder') : t('settings.channels.announcements')}
              onChange={(e) => setName(e.target.value)}
            />
          </div>
          <div className="field">
            <label htmlFor={`${id}-kind`} className="field-label">
              {t('settings.channels.kind')}
            </label>
            <select id={`${id}-kind`} className="input" value={kind} onChange={(e) => setKind(e.target.value as 'text' | 'category')}>
              <option value="text">{t('settings.channels.kindText')}</option>
              <option value="category">{t('settings.channels.kindCategory')}</option>
            </select>
          </div>
          <button type="submit" className="button primary" disabled={busy}>
            {kind === 'category' ? t('settings.channels.createCategory') : t('settings.channels.createChannel')}
          </button>
          {error && (
            <p className={`field-error ${styles.full}`} role="alert">
              {error}
            </p>
          )}
        </form>
      )}
      <ul className={styles.channelRows}>
        {groups.flatMap((g) => [
          ...(g.category
            ? [
                <ChannelRow
                  key={g.category.id}
                  channel={g.category}
                  categories={categories}
                  manage={manage}
                  roles={roles}
                  onPermissions={() => g.category && onPermissions(g.category.id)}
                />,
              ]
            : []),
          ...g.channels.map((c) => (
            <ChannelRow
              key={c.id}
              channel={c}
              categories={categories}
              manage={manage}
              roles={roles}
              onPermissions={() => onPermissions(c.id)}
            />
          )),
        ])}
        {channels.length === 0 && categories.length === 0 && <li className="empty-note">{t('settings.channels.noChannelsYet')}</li>}
      </ul>
    </section>
  );
}

interface RowProps {
  channel: Channel;
  categories: Channel[];
  manage: boolean;
  roles: boolean;
  onPermissions: () => void;
}

function ChannelRow({ channel, categories, manage, roles, onPermissions }: RowProps) {
  const isCategory = channel.type === 'category';
  const [name, setName] = useState(channel.name);
  const [topic, setTopic] = useState(channel.topic ?? '');
  const { busy, error: topicError, run } = useAction();
  const id = useId();
  const priv = isPrivate(channel);
  useEffect(() => setName(channel.name), [channel.name]);
  useEffect(() => setTopic(channel.topic ?? ''), [channel.topic]);
  const topicChanged = topic.trim() !== (channel.topic ?? '');

  const save = async (e: FormEvent) => {
    e.preventDefault();
    const n = isCategory ? name.trim() : normaliseChannelName(name);
    if (!n || n === channel.name) return;
    await run(
      async () => {
        await renameChannel(channel, n);
        toast(t('settings.channels.channelRenamedToN', { n }));
      },
      { onError: toastError },
    );
  };

  const saveTopic = async (e: FormEvent) => {
    e.preventDefault();
    if (!topicChanged) return;
    const trimmed = topic.trim();
    await run(async () => {
      await updateChannel(channel.id, { topic: trimmed || null });
      toast(
        trimmed
          ? t('settings.channels.topicOfChannelSaved', { channel: channel.name })
          : t('settings.channels.topicOfChannelRemoved', { channel: channel.name }),
      );
    });
  };

  const move = async (parentId: string | null) => {
    await run(
      async () => {
        await updateChannel(channel.id, { parentId });
      },
      { onError: toastError },
    );
  };

  const remove = async () => {
    const ok = await confirm({
      title: isCategory ? t('settings.channels.deleteCategory') : t('settings.channels.deleteChannel'),
      body: (
        <p>
          <Trans
            i18nKey={isCategory ? 'settings.channels.deleteCategoryConfirm' : 'settings.channels.deleteConfirm'}
            values={{ channel: channel.name }}
            components={{ b: <strong /> }}
          />
        </p>
      ),
      confirmLabel: isCategory ? t('settings.channels.deleteCategory') : t('settings.channels.deleteChannel'),
      danger: true,
    });
    if (!ok) return;
    try {
      await deleteChannel(channel);
      toast(t('settings.channels.channelDeleted', { channel: channel.name }));
    } catch (err) {
      toastError(err);
    }
  };

  const hash = isCategory ? (
    <span className={own.categoryTag}>{t('settings.channels.categoryTag')}</span>
  ) : (
    <span className={`${sidebarStyles.channelHash} ${own.hash}`} aria-hidden="true">
      {priv ? <LockIcon size={14} /> : '#'}
    </span>
  );

  return (
    <li
      className={`${styles.channelRow} ${own.row}${isCategory ? ` ${own.categoryRow}` : channel.parentId ? ` ${own.inCategory}` : ''}`}
      data-channel-row={channel.id}
    >
      {manage ? (
        <>
          <form className={`row ${own.line}`} onSubmit={save}>
            <label htmlFor={`${id}-name`} className="visually-hidden">
              {t('settings.channels.nameOfChannel', { channel: channel.name })}
            </label>
            {hash}
            <input id={`${id}-name`} className="input small" value={name} maxLength={100} onChange={(e) => setName(e.target.value)} />
            <button
              type="submit"
              className="button secondary small"
              disabled={busy || normaliseChannelName(name) === channel.name || !name.trim()}
            >
              {t('settings.channels.rename')}
            </button>
            {priv && <span className={own.privateTag}>{t('settings.channels.private')}</span>}
            <span className={own.spacer} />
            {!isCategory && categories.length > 0 && (
              <>
                <label htmlFor={`${id}-parent`} className="visually-hidden">
                  {t('settings.channels.categoryOf', { channel: channel.name })}
                </label>
                <select
                  id={`${id}-parent`}
                  className="input small"
                  value={channel.parentId ?? ''}
                  disabled={busy}
                  onChange={(e) => void move(e.target.value || null)}
                >
                  <option value="">{t('settings.channels.noCategory')}</option>
                  {categories.map((c) => (
                    <option key={c.id} value={c.id}>
                      {c.name}
                    </option>
                  ))}
                </select>
              </>
            )}
            {roles && (
              <button
                type="button"
                className="button secondary small"
                onClick={onPermissions}
                aria-label={t('settings.channels.permissionsOfChannel', { channel: channel.name })}
              >
                {t('settings.channels.permissions')}
              </button>
            )}
            <button
              type="button"
              className="button danger small"
              onClick={() => void remove()}
              aria-label={t('settings.channels.deleteChannelNamed', { channel: channel.name })}
            >
              {t('settings.channels.delete')}
            </button>
          </form>
          {!isCategory && (
            <form className={`row ${own.line} ${own.topicLine}`} onSubmit={saveTopic}>
              <label htmlFor={`${id}-topic`} className="visually-hidden">
                {t('settings.channels.topicOfChannel', { channel: channel.name })}
              </label>
              <input
                id={`${id}-topic`}
                className={`input small ${own.topic}`}
                value={topic}
                maxLength={1024}
                placeholder={t('settings.channels.addATopicWhat')}
                onChange={(e) => setTopic(e.target.value)}
                aria-invalid={topicError ? true : undefined}
              />
              {topicChanged && (
                <button type="submit" className="button secondary small" disabled={busy}>
                  {t('settings.channels.saveTopic')}
                </button>
              )}
            </form>
          )}
          {topicError && (
            <p className={`field-error ${own.topicLine}`} role="alert">
              {topicError}
            </p>
          )}
        </>
      ) : (
        <div className={`row ${own.line}`}>
          {hash}
          <span className={own.name}>{channel.name}</span>
          {priv && <span className={own.privateTag}>{t('settings.channels.private')}</span>}
          <span className={own.spacer} />
          {roles && (
            <button
              type="button"
              className="button secondary small"
              onClick={onPermissions}
              aria-label={t('settings.channels.permissionsOfChannel', { channel: channel.name })}
            >
              {t('settings.channels.permissions')}
            </button>
          )}
        </div>
      )}
    </li>
  );
}
