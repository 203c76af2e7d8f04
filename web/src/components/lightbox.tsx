/**
 * Images open large in a lightbox (issue 13): a click on an image attachment or an
 * embed's image shows it over the page, with the other images of the same message a
 * press of the arrow keys away. The viewer (yet-another-react-lightbox and its styles)
 * is a chunk of its own, fetched on the first click; this part, in the first load, only
 * keeps what is open and mounts it. Closing gives focus back to the image's link.
 */
import { lazy, Suspense, useSyncExternalStore, type MouseEvent } from 'react';

export interface LightboxImage {
  src: string;
  alt: string;
  /** The file name, for the download link. */
  name?: string;
}

export interface LightboxState {
  images: LightboxImage[];
  index: number;
  origin: HTMLElement | null;
}

let current: LightboxState | null = null;
const listeners = new Set<() => void>();
const emit = () => {
  for (const l of listeners) l();
};

function open(state: LightboxState) {
  current = state;
  emit();
}

/** Called by the viewer once it has faded out. */
export function lightboxClosed() {
  const origin = current?.origin;
  current = null;
  emit();
  if (origin?.isConnected) origin.focus({ preventScroll: true });
}

/** The attribute that marks a link around an image as opening in the lightbox. */
export const LIGHTBOX_ATTR = 'data-lightbox';

/**
 * A click handler for a link around an image (marked with `data-lightbox`): a plain
 * click opens the lightbox on it, with the other such images of its message; a click
 * with a modifier key (new tab, download) is left to the browser.
 */
export function openInLightbox(e: MouseEvent<HTMLAnchorElement>) {
  if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  const link = e.currentTarget;
  const scope = link.closest('[data-message-id]') ?? link.parentElement ?? link;
  const links = [...scope.querySelectorAll<HTMLAnchorElement>(`a[${LIGHTBOX_ATTR}]`)];
  const images = links.map((a) => ({
    src: a.href,
    alt: a.querySelector('img')?.alt ?? '',
    name: a.getAttribute(LIGHTBOX_ATTR) || undefined,
  }));
  open({ images, index: Math.max(0, links.indexOf(link)), origin: link });
}

const Viewer = lazy(() => import('./lightbox-view'));

/** Mounted once, at the app's root. */
export function LightboxHost() {
  const state = useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => current,
  );
  if (!state) return null;
  return (
    <Suspense fallback={null}>
      <Viewer state={state} />
    </Suspense>
  );
}
