/**
 * Unsent composer text per channel, kept in this browser (localStorage) so it survives a
 * reload (README.md, "Messages in the web client"). Stored in the composer's own form: the readable text
 * (`Hey @alice`) with the names picked from the autocomplete and the syntax each stands
 * for, so a restored draft shows names at once, before the member list arrives, and sends
 * exactly what it would have; and the reply being written, if any. Bounded: a draft longer
 * than a message can be is cut, and only the most recent drafts are kept. Logging out
 * forgets them all.
 */
import type { DraftMention } from './mentions';

export interface StoredReply {
  messageId: string;
  authorId: string;
  authorName: string;
  ping: boolean;
  noPing: boolean;
}

export interface Draft {
  text: string;
  mentions: DraftMention[];
  reply?: StoredReply;
}

const KEY = 'parley.drafts';
/** A message's limit is 4,000 characters; a draft is allowed a little over to be trimmed by hand. */
export const MAX_DRAFT_CHARS = 6000;
/** The most recently written drafts kept (a few hundred KB of storage at the very most). */
export const MAX_DRAFTS = 50;

interface Entry extends Draft {
  at: number;
}

function readAll(): Record<string, Entry> {
  try {
    const raw = localStorage.getItem(KEY);
    const parsed: unknown = raw ? JSON.parse(raw) : {};
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, Entry>) : {};
  } catch {
    return {};
  }
}

function writeAll(all: Record<string, Entry>): void {
  try {
    if (Object.keys(all).length) localStorage.setItem(KEY, JSON.stringify(all));
    else localStorage.removeItem(KEY);
  } catch {
    /* storage full or disabled: drafts then last as long as the tab */
  }
}

function isMention(m: unknown): m is DraftMention {
  return !!m && typeof m === 'object' && typeof (m as DraftMention).display === 'string' && typeof (m as DraftMention).syntax === 'string';
}

/** The channel's stored draft, or null. Anything malformed in storage is ignored. */
export function loadDraft(channelId: string): Draft | null {
  const e = readAll()[channelId];
  if (!e || typeof e.text !== 'string') return null;
  const mentions = Array.isArray(e.mentions) ? e.mentions.filter(isMention) : [];
  const r = e.reply;
  const reply =
    r && typeof r === 'object' && typeof r.messageId === 'string' && typeof r.authorName === 'string'
      ? { messageId: r.messageId, authorId: String(r.authorId ?? ''), authorName: r.authorName, ping: !!r.ping, noPing: !!r.noPing }
      : undefined;
  if (!e.text && !reply) return null;
  return { text: e.text.slice(0, MAX_DRAFT_CHARS), mentions, ...(reply ? { reply } : {}) };
}

/** Keeps (or, when there is nothing to keep, forgets) the channel's draft. */
export function saveDraft(channelId: string, draft: Draft): void {
  const all = readAll();
  if (!draft.text && !draft.reply) {
    if (!(channelId in all)) return;
    delete all[channelId];
    writeAll(all);
    return;
  }
  const text = draft.text.slice(0, MAX_DRAFT_CHARS);
  all[channelId] = {
    text,
    mentions: draft.mentions.filter((m) => text.includes(m.display)),
    ...(draft.reply ? { reply: draft.reply } : {}),
    at: Date.now(),
  };
  const ids = Object.keys(all);
  if (ids.length > MAX_DRAFTS) {
    ids.sort((a, b) => (all[b]?.at ?? 0) - (all[a]?.at ?? 0));
    for (const id of ids.slice(MAX_DRAFTS)) delete all[id];
  }
  writeAll(all);
}

/** Logging out: the next person at this browser does not see them. */
export function forgetDrafts(): void {
  writeAll({});
}
