/**
 * The theme chosen in account settings: the system's (the default), light or dark. Kept
 * in this browser (localStorage) and set on <html> as `data-theme`, which the build turns
 * every `@media (prefers-color-scheme: dark)` block into following (web/build/theme.ts).
 */
import { useSyncExternalStore } from 'react';

export type Theme = 'system' | 'light' | 'dark';
export const THEMES: readonly Theme[] = ['system', 'light', 'dark'];

const KEY = 'parley.theme';
const listeners = new Set<() => void>();

function read(): Theme {
  try {
    const v = localStorage.getItem(KEY);
    return v === 'light' || v === 'dark' ? v : 'system';
  } catch {
    return 'system';
  }
}

let current: Theme = read();

/** Puts the theme on <html>: its attribute for the sheets, and `color-scheme` for the browser's own controls. */
function apply(theme: Theme): void {
  const root = document.documentElement;
  if (theme === 'system') {
    delete root.dataset.theme;
    root.style.removeProperty('color-scheme');
  } else {
    root.dataset.theme = theme;
    root.style.colorScheme = theme;
  }
}

/** Applies the stored theme (before the first render) and follows changes made in other tabs. */
export function initTheme(): void {
  apply(current);
  window.addEventListener('storage', (e) => {
    if (e.key !== KEY) return;
    current = read();
    apply(current);
    for (const l of listeners) l();
  });
}

export function setTheme(theme: Theme): void {
  current = theme;
  try {
    if (theme === 'system') localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, theme);
  } catch {
    /* storage refused (private mode): the choice lasts this visit */
  }
  apply(theme);
  for (const l of listeners) l();
}

export function useTheme(): Theme {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => current,
  );
}
