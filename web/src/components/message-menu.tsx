/**
 * A message's context menu (README.md, "Messages in the web client"): right-click, a long press on touch
 * screens (~500 ms without moving), or the context-menu key and Shift+F10 on a focused
 * message. It holds what the hover toolbar holds and a few things more: add reaction,
 * reply, create (or open) a thread, edit, pin or unpin, mark unread, copy text, copy link, apps and delete, each only
 * where the toolbar's permission checks allow it. Reporting waits for a reports API.
 */
import { type KeyboardEvent, type MouseEvent, type PointerEvent, type ReactNode, useEffect, useRef, useState } from 'react';
import type { Message } from '../api/types';
import { t } from '../i18n';
import { paths } from '../router';
import { setPinned, startReply } from '../state/conversation';
import { markUnread } from '../state/conversations';
import { toast, toastError } from '../state/toasts';
import { openAppsMenu } from './apps-menu';
import { ContextMenu, type ContextMenuItem } from './context-menu';

const LONG_PRESS_MS = 500;

export interface MessageMenuOptions {
  canReact: boolean;
  canReply: boolean;
  canPin: boolean;
  canEdit: boolean;
  canDelete: boolean;
  hasApps: boolean;
  /** Start a thread from it ("Create thread"), or open the one it started ("Open thread"). */
  thread?: { label: string; onSelect: () => void };
  /** The text as the person reads it (names, not ids), for "Copy text". */
  copyText: () => string;
  onReact: () => void;
  onEdit: () => void;
  onDelete: () => void;
}

/** The absolute address of a message's link (`paths.message`), for pasting anywhere. */
export function messageLink(message: Pick<Message, 'serverId' | 'channelId' | 'id'>): string {
  return location.origin + paths.message(message.serverId ?? null, message.channelId, message.id);
}

async function copy(text: string, done: string): Promise<void> {
  await navigator.clipboard.writeText(text);
  toast(done);
}

/**
 * The handlers that open the menu (spread on the message's element) and the menu itself
 * (rendered with it). An ephemeral message has no menu: nothing to act on.
 */
export function useMessageMenu(message: Message, o: MessageMenuOptions): { handlers: Record<string, unknown>; menu: ReactNode } {
  const [at, setAt] = useState<{ x: number; y: number } | null>(null);
  const press = useRef<{ timer: ReturnType<typeof setTimeout>; x: number; y: number } | null>(null);
  const longPressed = useRef(false);
  useEffect(() => () => clearTimeout(press.current?.timer), []);
  if (message.ephemeral) return { handlers: {}, menu: null };

  const cancel = () => {
    if (press.current) clearTimeout(press.current.timer);
    press.current = null;
  };
  const openBelow = (el: HTMLElement) => {
    const r = el.getBoundingClientRect();
    setAt({ x: r.left + 56, y: r.top + Math.min(r.height, 28) });
  };

  const handlers = {
    onContextMenu: (e: MouseEvent<HTMLElement>) => {
      // A long press already opened it (touch browsers fire contextmenu after it too).
      if (longPressed.current) {
        longPressed.current = false;
        e.preventDefault();
        return;
      }
      // Inside a link, an image, the edit box or a text selection, the browser's menu is the useful one.
      const target = e.target as HTMLElement;
      if (target.closest('a, img, video, audio, textarea, input') || window.getSelection()?.toString()) return;
      e.preventDefault();
      // The keyboard's menu key gives no position: open below the message's start.
      if (e.clientX === 0 && e.clientY === 0) openBelow(e.currentTarget);
      else setAt({ x: e.clientX, y: e.clientY });
    },
    onKeyDown: (e: KeyboardEvent<HTMLElement>) => {
      // On the message itself (not a button or the edit box inside it).
      if (e.target !== e.currentTarget) return;
      if (e.key === 'ContextMenu' || (e.key === 'F10' && e.shiftKey)) {
        e.preventDefault();
        openBelow(e.currentTarget);
      }
    },
    onPointerDown: (e: PointerEvent<HTMLElement>) => {
      if (e.pointerType !== 'touch') return;
      const target = e.target as HTMLElement;
      if (target.closest('a, button, textarea, input')) return;
      const { clientX: x, clientY: y } = e;
      cancel();
      press.current = {
        x,
        y,
        timer: setTimeout(() => {
          press.current = null;
          longPressed.current = true;
          setAt({ x, y });
        }, LONG_PRESS_MS),
      };
    },
    // Moving the finger (a scroll) is not a long press.
    onPointerMove: (e: PointerEvent<HTMLElement>) => {
      if (press.current && Math.hypot(e.clientX - press.current.x, e.clientY - press.current.y) > 10) cancel();
    },
    onPointerUp: cancel,
    onPointerCancel: cancel,
  };

  let menu: ReactNode = null;
  if (at) {
    const items: ContextMenuItem[] = [];
    if (o.canReact) items.push({ label: t('message.addReaction'), onSelect: o.onReact });
    if (o.canReply) items.push({ label: t('message.reply'), onSelect: () => startReply(message) });
    if (o.thread) items.push({ id: 'thread', label: o.thread.label, onSelect: o.thread.onSelect });
    if (o.canEdit) items.push({ label: t('message.editMessage'), onSelect: o.onEdit });
    if (o.canPin) {
      items.push({
        label: message.pinned ? t('message.unpinMessage') : t('message.pinMessage'),
        onSelect: () => void setPinned(message, !message.pinned).catch(toastError),
      });
    }
    items.push({
      label: t('messageMenu.markUnread'),
      onSelect: () =>
        void markUnread(message.channelId, message.id)
          .then((done) => done || toast(t('messageMenu.nothingBefore')))
          .catch(toastError),
    });
    if (message.content) {
      items.push({
        label: t('messageMenu.copyText'),
        onSelect: () => void copy(o.copyText(), t('messageMenu.textCopied')).catch(toastError),
      });
    }
    items.push({
      label: t('messageMenu.copyLink'),
      onSelect: () => void copy(messageLink(message), t('messageMenu.linkCopied')).catch(toastError),
    });
    if (o.hasApps) {
      const point = at;
      items.push({
        label: t('message.apps'),
        onSelect: () =>
          openAppsMenu({
            type: 'message',
            channelId: message.channelId,
            targetId: message.id,
            x: point.x,
            y: point.y,
            returnTo: document.querySelector<HTMLElement>(`[data-message-id="${message.id}"]`),
          }),
      });
    }
    if (o.canDelete) items.push({ label: t('message.deleteMessage'), onSelect: o.onDelete, danger: true });
    menu = <ContextMenu items={items} anchor={at} onClose={() => setAt(null)} label={t('messageMenu.label')} />;
  }
  return { handlers, menu };
}
