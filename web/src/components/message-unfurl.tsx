/**
 * Links to messages on this instance unfurl as quotes under the message that holds them
 * (README.md, "Messages in the web client"): the linked message's author, the start of its text, its
 * channel and a jump link. Fetched through the permission-checked API (GET one message) as
 * the viewer, once per session: a message the viewer may not read (403), or that is gone
 * (404), shows nothing at all, so a link says nothing about what is behind it.
 */
import { useEffect, useMemo, useState } from 'react';
import { api, seg } from '../api/client';
import type { Message } from '../api/types';
import { t } from '../i18n';
import { splitMentions } from '../lib/mentions';
import { toPlainText } from '../markdown/plain';
import { Link, messageLinkTarget, paths } from '../router';
import { useStore } from '../state/store';
import { Avatar } from './avatar';
import { MentionChip, MentionScope } from './mention-chip';
import styles from './message-unfurl.module.css';

/** At most this many quotes under one message. */
const MAX_UNFURLS = 3;
const URL_IN_TEXT = /https?:\/\/[^\s<>"'`]+/g;

/** The session's answers: the message, or null when the viewer may not read it or it is gone. */
const cache = new Map<string, Promise<Message | null>>();

function fetchLinked(channelId: string, messageId: string): Promise<Message | null> {
  const key = `${channelId}/${messageId}`;
  let p = cache.get(key);
  if (!p) {
    p = api.get<Message>(`/channels/${seg(channelId)}/messages/${seg(messageId)}`).catch(() => null);
    cache.set(key, p);
  }
  return p;
}

/** The message links in a text, each once, in order. */
export function messageLinksIn(content: string): { serverId: string | null; channelId: string; messageId: string }[] {
  const out: { serverId: string | null; channelId: string; messageId: string }[] = [];
  for (const m of content.matchAll(URL_IN_TEXT)) {
    const target = messageLinkTarget(m[0].replace(/[.,;:!?)\]]+$/, ''));
    if (target && !out.some((o) => o.messageId === target.messageId)) out.push(target);
    if (out.length === MAX_UNFURLS) break;
  }
  return out;
}

export function MessageUnfurls({ message }: { message: Message }) {
  const links = useMemo(
    () => messageLinksIn(message.content ?? '').filter((l) => l.messageId !== message.id),
    [message.content, message.id],
  );
  if (!links.length) return null;
  return (
    <div className={styles.unfurls}>
      {links.map((l) => (
        <Unfurl key={l.messageId} channelId={l.channelId} messageId={l.messageId} />
      ))}
    </div>
  );
}

function Unfurl({ channelId, messageId }: { channelId: string; messageId: string }) {
  const [linked, setLinked] = useState<Message | null>(null);
  useEffect(() => {
    let live = true;
    void fetchLinked(channelId, messageId).then((m) => live && setLinked(m));
    return () => {
      live = false;
    };
  }, [channelId, messageId]);
  const channelName = useStore((s) => {
    if (!linked) return null;
    if (linked.serverId) {
      const c = s.channels[linked.serverId]?.find((x) => x.id === linked.channelId);
      const server = s.servers[linked.serverId]?.name;
      return c ? `#${c.name}${server ? ` · ${server}` : ''}` : null;
    }
    return t('unfurl.directMessage');
  });
  const scope = useMemo(() => ({ serverId: linked?.serverId ?? null, users: linked?.mentions }), [linked]);
  if (!linked || linked.channelId !== channelId) return null;
  const author = linked.author ?? { id: 'unknown', name: t('common.unknown'), avatar: null };
  const text = toPlainText(linked.content ?? '', 280);
  const where = channelName ?? '';
  const to = paths.message(linked.serverId ?? null, linked.channelId, linked.id);
  return (
    <figure className={styles.unfurl} data-unfurl={linked.id} aria-label={t('unfurl.label', { author: author.name, channel: where })}>
      <div className={styles.header}>
        <Avatar id={linked.webhookId ?? author.id} name={author.name} src={author.avatar} size={20} />
        <span className={styles.author}>{author.name}</span>
        {where && <span className={styles.channel}>{where}</span>}
      </div>
      {text && (
        <blockquote className={styles.text}>
          <MentionScope value={scope}>
            {/* biome-ignore lint/suspicious/noArrayIndexKey: the parts of one text: their place is their identity */}
            {splitMentions(text).map((p, i) => (typeof p === 'string' ? p : <MentionChip key={i} token={p} plain />))}
          </MentionScope>
        </blockquote>
      )}
      <Link to={to} className={styles.jump} aria-label={t('unfurl.jumpTo', { author: author.name })}>
        {t('unfurl.jump')}
      </Link>
    </figure>
  );
}
