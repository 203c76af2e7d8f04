/**
 * Drawers on small screens (the channel sidebar, the member list, the DM list): Escape
 * closes an open drawer and gives the focus back to the button that opened it. The
 * backdrop (`.scrim`, styles.css) closes it on a tap beside it.
 */
import { type RefObject, useEffect } from 'react';

export function useDrawerEscape(open: boolean, close: () => void, opener: RefObject<HTMLElement | null>, media?: string): void {
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      // Whatever else handled Escape first (a dialog, the composer's autocomplete, a menu) wins.
      if (e.key !== 'Escape' || e.defaultPrevented) return;
      if (media && !window.matchMedia(media).matches) return;
      // A native <dialog> (the member card) still holds the key while it closes: one Escape, one layer.
      if (document.querySelector('dialog[open], [role="dialog"], [role="alertdialog"], [role="menu"]')) return;
      e.preventDefault();
      close();
      opener.current?.focus();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [open, close, opener, media]);
}

/** The width under which the member list is a drawer over the chat (styles.css). */
export const MEMBER_DRAWER_MEDIA = '(max-width: 1000px)';
/** The width under which the sidebars are drawers (styles.css). */
export const SIDEBAR_DRAWER_MEDIA = '(max-width: 760px)';
