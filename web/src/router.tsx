/** A minimal History-API router: `usePath`, `navigate`, `Link` and `match`. */
import { useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent } from 'react';

const listeners = new Set<() => void>();

function emit() {
  for (const l of listeners) l();
}

window.addEventListener('popstate', emit);

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === location.pathname + location.search) return;
  if (options.replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  emit();
}

export function usePath(): string {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => location.pathname,
  );
}

/** Match `/s/:serverId/c/:channelId`-style patterns; returns params or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split('/').filter(Boolean);
  const a = path.split('/').filter(Boolean);
  const optionalTail = (p[p.length - 1] ?? '').endsWith('?');
  if (a.length > p.length || a.length < p.length - (optionalTail ? 1 : 0)) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    const part = p[i] ?? '';
    const actual = a[i];
    if (part.startsWith(':')) {
      const name = part.slice(1).replace(/\?$/, '');
      if (actual === undefined) continue;
      try {
        params[name] = decodeURIComponent(actual);
      } catch {
        return null;
      }
    } else if (part !== actual) {
      return null;
    }
  }
  return params;
}

type LinkProps = AnchorHTMLAttributes<HTMLAnchorElement> & { to: string };

/** An anchor that navigates in-app on a plain click and behaves normally otherwise. */
export function Link({ to, onClick, ...rest }: LinkProps) {
  const handle = (e: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(e);
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
  return <a href={to} onClick={handle} {...rest} />;
}

/** Client-side paths (none of them collide with API paths, so the SPA fallback serves them). */
export const paths = {
  home: () => '/',
  login: () => '/login',
  register: () => '/register',
  server: (serverId: string) => `/s/${encodeURIComponent(serverId)}`,
  channel: (serverId: string, channelId: string) => `/s/${encodeURIComponent(serverId)}/c/${encodeURIComponent(channelId)}`,
  /** A thread or forum post, open beside its parent channel (or over it, on a phone). */
  thread: (serverId: string, channelId: string, threadId: string) =>
    `/s/${encodeURIComponent(serverId)}/c/${encodeURIComponent(channelId)}/t/${encodeURIComponent(threadId)}`,
  settings: (serverId: string, tab?: string) => `/s/${encodeURIComponent(serverId)}/settings${tab ? `/${tab}` : ''}`,
  myBots: () => '/my-bots',
  account: () => '/account',
  invite: (code: string) => `/invite/${encodeURIComponent(code)}`,
  /** A bot's invite link, at Discord's path (its query names the bot: lib/bot-invite.ts). */
  authorize: () => '/oauth2/authorize',
  /** Direct messages: the list, and one conversation. */
  dms: () => '/dms',
  dm: (channelId: string) => `/dms/${encodeURIComponent(channelId)}`,
  /** One message: opens its channel (a server's, or a DM when `serverId` is null) scrolled to it and flashes it. */
  message: (serverId: string | null, channelId: string, messageId: string) =>
    serverId === null
      ? `/dms/${encodeURIComponent(channelId)}/m/${encodeURIComponent(messageId)}`
      : `/s/${encodeURIComponent(serverId)}/c/${encodeURIComponent(channelId)}/m/${encodeURIComponent(messageId)}`,
};

/**
 * The message a link on this instance points at: the client's own form (`paths.message`)
 * or Discord's (`/channels/{server}/{channel}/{message}`, `@me` for a DM), at the address
 * the client is served from. Null for anything else.
 */
export function messageLinkTarget(href: string): { serverId: string | null; channelId: string; messageId: string } | null {
  let url: URL;
  try {
    url = new URL(href, location.origin);
  } catch {
    return null;
  }
  if (url.origin !== location.origin) return null;
  const id = (v: string | undefined) => (v && /^[0-9]{1,20}$/.test(v) ? v : null);
  let m = match('/s/:serverId/c/:channelId/m/:messageId', url.pathname);
  if (m && id(m.serverId) && id(m.channelId) && id(m.messageId)) {
    return { serverId: m.serverId ?? null, channelId: m.channelId ?? '', messageId: m.messageId ?? '' };
  }
  m = match('/dms/:channelId/m/:messageId', url.pathname);
  if (m && id(m.channelId) && id(m.messageId)) return { serverId: null, channelId: m.channelId ?? '', messageId: m.messageId ?? '' };
  m = match('/channels/:serverId/:channelId/:messageId', url.pathname);
  if (m && (m.serverId === '@me' || id(m.serverId)) && id(m.channelId) && id(m.messageId)) {
    return { serverId: m.serverId === '@me' ? null : (m.serverId ?? null), channelId: m.channelId ?? '', messageId: m.messageId ?? '' };
  }
  return null;
}
