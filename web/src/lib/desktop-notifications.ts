/**
 * Desktop notifications through the browser's Notification API: the permission, and
 * showing one that opens its message when clicked.
 */
import { useSyncExternalStore } from 'react';
import { navigate } from '../router';

export type PermissionState = NotificationPermission | 'unsupported';

const supported = () => typeof window !== 'undefined' && 'Notification' in window;

export function notificationPermission(): PermissionState {
  return supported() ? Notification.permission : 'unsupported';
}

const listeners = new Set<() => void>();
const emit = () => {
  for (const l of listeners) l();
};

/** Asks the browser (it shows its own prompt once; after a refusal it answers 'denied' at once). */
export async function requestNotificationPermission(): Promise<PermissionState> {
  if (!supported()) return 'unsupported';
  try {
    await Notification.requestPermission();
  } finally {
    emit();
  }
  return Notification.permission;
}

/** The permission, kept current (the browser's own settings may change it: we look again on focus). */
export function useNotificationPermission(): PermissionState {
  return useSyncExternalStore((l) => {
    listeners.add(l);
    window.addEventListener('focus', l);
    return () => {
      listeners.delete(l);
      window.removeEventListener('focus', l);
    };
  }, notificationPermission);
}

export interface DesktopNotice {
  title: string;
  body: string;
  /** The message id: one notification per message, however many tabs try. */
  tag: string;
  icon?: string;
  /** Where a click takes the person. */
  path: string;
  /** The message to bring into view once there. */
  messageId?: string;
}

/** Shows a notification; a click focuses the window, opens the channel and brings the message into view. */
export function showNotification(n: DesktopNotice): void {
  if (notificationPermission() !== 'granted') return;
  let notification: Notification;
  try {
    notification = new Notification(n.title, { body: n.body, tag: n.tag, icon: n.icon });
  } catch {
    return; // some browsers only notify from a service worker
  }
  notification.onclick = () => {
    window.focus();
    navigate(n.path);
    if (n.messageId) revealMessage(n.messageId);
    notification.close();
  };
}

/** Scrolls a message into view once the channel has drawn it (for a few seconds at most). */
function revealMessage(messageId: string): void {
  const until = Date.now() + 5000;
  const find = () => {
    const el = document.querySelector<HTMLElement>(`[data-message-id="${CSS.escape(messageId)}"]`);
    if (el) {
      el.scrollIntoView({ block: 'center' });
      el.focus({ preventScroll: true });
      return;
    }
    if (Date.now() < until) requestAnimationFrame(find);
  };
  requestAnimationFrame(find);
}
