/**
 * The status this person shows (docs/gateway.md#presence): chosen from the status menu, kept in
 * localStorage so every tab and the next visit use it, and told to the gateway (with each
 * identify, and by `presence_update` when it changes). A person who chose `online` and
 * has not touched the page for IDLE_AFTER_MS shows `idle` until they come back.
 */
import type { ChosenStatus } from '@parley/protocol';
import { t } from '../i18n';
import { store } from './store';

const dispatch = store.dispatch.bind(store);
const getState = () => store.getState();

const KEY = 'parley.status';
const IDLE_AFTER_MS = 10 * 60_000;
const CHOICES: readonly ChosenStatus[] = ['online', 'idle', 'dnd', 'invisible'];

/** What the status menu offers, in order, with what each means. */
export const STATUS_CHOICES: ReadonlyArray<{ status: ChosenStatus; readonly label: string; readonly hint: string }> = CHOICES.map(
  (status) => ({
    status,
    get label() {
      return t(`presence.status.${status}`);
    },
    get hint() {
      return t(`presence.hint.${status}`);
    },
  }),
);

export const statusLabel = (s: ChosenStatus | 'offline'): string => t(`presence.status.${s}`);

function stored(): ChosenStatus {
  try {
    const v = localStorage.getItem(KEY);
    return v && (CHOICES as readonly string[]).includes(v) ? (v as ChosenStatus) : 'online';
  } catch {
    return 'online';
  }
}

interface StatusSink {
  setStatus(status: ChosenStatus): void;
}

let gateway: StatusSink | null = null;
let away = false;

/** What the gateway is told: the choice, or idle while an online person is away. */
const effective = (chosen: ChosenStatus): ChosenStatus => (chosen === 'online' && away ? 'idle' : chosen);

function apply(): void {
  gateway?.setStatus(effective(getState().myStatus));
}

/** The person picked a status in the menu: every tab follows (the storage event). */
export function chooseStatus(status: ChosenStatus): void {
  try {
    localStorage.setItem(KEY, status);
  } catch {
    // Private mode: this tab only.
  }
  dispatch({ type: 'presence/mine', status });
  apply();
}

/**
 * Connects the status to a gateway client for the life of the session: the stored choice
 * goes with the identify; other tabs' choices and the person's activity follow. Returns the
 * cleanup.
 */
export function attachStatus(sink: StatusSink): () => void {
  gateway = sink;
  dispatch({ type: 'presence/mine', status: stored() });
  let last = Date.now();
  away = false;
  apply();
  const onStorage = (e: StorageEvent) => {
    if (e.key !== KEY) return;
    dispatch({ type: 'presence/mine', status: stored() });
    apply();
  };
  const onActivity = () => {
    last = Date.now();
    if (away) {
      away = false;
      apply();
    }
  };
  const timer = window.setInterval(() => {
    if (!away && Date.now() - last > IDLE_AFTER_MS) {
      away = true;
      apply();
    }
  }, 30_000);
  const events = ['pointerdown', 'keydown', 'mousemove', 'focus'] as const;
  for (const e of events) window.addEventListener(e, onActivity, { passive: true });
  window.addEventListener('storage', onStorage);
  return () => {
    gateway = null;
    window.clearInterval(timer);
    for (const e of events) window.removeEventListener(e, onActivity);
    window.removeEventListener('storage', onStorage);
  };
}
