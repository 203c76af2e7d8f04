/** Transient notices (errors and confirmations) shown in a live region. */
import { useSyncExternalStore } from 'react';
import { describeError } from '../api/client';

export interface Toast {
  id: number;
  kind: 'error' | 'info';
  text: string;
}

let toasts: Toast[] = [];
let nextId = 1;
const listeners = new Set<() => void>();

function set(next: Toast[]) {
  toasts = next;
  for (const l of listeners) l();
}

export function dismissToast(id: number): void {
  set(toasts.filter((t) => t.id !== id));
}

export function toast(text: string, kind: Toast['kind'] = 'info'): void {
  // The same message twice in a row is shown once.
  if (toasts.some((t) => t.text === text && t.kind === kind)) return;
  const id = nextId++;
  set([...toasts.slice(-3), { id, kind, text }]);
  setTimeout(() => dismissToast(id), kind === 'error' ? 8000 : 4000);
}

/** Show whatever was thrown as a readable error. */
export function toastError(err: unknown): void {
  if (err instanceof DOMException && err.name === 'AbortError') return;
  toast(describeError(err), 'error');
}

export function useToasts(): Toast[] {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => toasts,
  );
}
