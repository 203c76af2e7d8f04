/**
 * Parley open in several tabs of one browser: one of them (the holder of a Web Lock) shows
 * desktop notifications, and each tells the others, over a BroadcastChannel, which channel
 * it shows and whether the person is looking at it, so no tab notifies about a channel the
 * person is reading in another one. Settings changed in one tab reach the others the same
 * way (the gateway has no event for them).
 *
 * Without Web Locks every tab is a notifier; the notifications carry the message id as
 * their tag, and a browser shows one notification per tag, so the person still sees one.
 */

const TAB_ID = Math.random().toString(36).slice(2) + Date.now().toString(36);
/** A tab that stays focused says so again this often; older news is forgotten (a crashed tab). */
const HEARTBEAT_MS = 30_000;
const FRESH_MS = 75_000;

type TabMessage =
  | { kind: 'looking'; tab: string; channelId: string | null; looking: boolean }
  | { kind: 'gone'; tab: string }
  | { kind: 'data'; tab: string; topic: string; data: unknown };

const bus: BroadcastChannel | null = typeof BroadcastChannel === 'function' ? new BroadcastChannel('parley-tabs') : null;
const others = new Map<string, { channelId: string | null; looking: boolean; at: number }>();
const topics = new Map<string, Set<(data: unknown) => void>>();

let leader = false;
let onScreen: string | null = null;
let heartbeat: ReturnType<typeof setInterval> | null = null;

function post(message: TabMessage): void {
  try {
    bus?.postMessage(message);
  } catch {
    /* a closed channel (the page is going away) */
  }
}

/** The page is visible and has the keyboard focus. */
export function pageLooking(): boolean {
  return document.visibilityState === 'visible' && document.hasFocus();
}

function announce(): void {
  const looking = pageLooking() && onScreen !== null;
  post({ kind: 'looking', tab: TAB_ID, channelId: onScreen, looking });
  if (looking && !heartbeat) heartbeat = setInterval(announce, HEARTBEAT_MS);
  if (!looking && heartbeat) {
    clearInterval(heartbeat);
    heartbeat = null;
  }
}

let started = false;

/** Starts the election and the listeners (once; called when a session starts). */
export function startTabs(): void {
  if (started) return;
  started = true;
  const locks = (navigator as Navigator & { locks?: LockManager }).locks;
  if (locks?.request) {
    // Held until the tab closes; the next tab in line takes over then.
    locks
      .request('parley-notifier', () => {
        leader = true;
        return new Promise<void>(() => undefined);
      })
      .catch(() => {
        leader = true;
      });
  } else {
    leader = true;
  }
  bus?.addEventListener('message', (e: MessageEvent<TabMessage>) => {
    const m = e.data;
    if (!m || typeof m !== 'object' || m.tab === TAB_ID) return;
    if (m.kind === 'looking') others.set(m.tab, { channelId: m.channelId, looking: m.looking, at: Date.now() });
    else if (m.kind === 'gone') others.delete(m.tab);
    else if (m.kind === 'data') for (const fn of topics.get(m.topic) ?? []) fn(m.data);
  });
  window.addEventListener('focus', announce);
  window.addEventListener('blur', announce);
  document.addEventListener('visibilitychange', announce);
  window.addEventListener('pagehide', () => post({ kind: 'gone', tab: TAB_ID }));
}

/** This tab shows desktop notifications. */
export function isNotifier(): boolean {
  return leader;
}

/** The channel this tab shows (null: none). */
export function setOnScreen(channelId: string | null): void {
  if (onScreen === channelId) return;
  onScreen = channelId;
  announce();
}

/** Whether the person is looking at this channel, in this tab or another. */
export function someoneLooking(channelId: string): boolean {
  if (onScreen === channelId && pageLooking()) return true;
  const now = Date.now();
  for (const t of others.values()) if (t.looking && t.channelId === channelId && now - t.at < FRESH_MS) return true;
  return false;
}

/** Tells the other tabs (not this one). */
export function broadcast(topic: string, data: unknown): void {
  post({ kind: 'data', tab: TAB_ID, topic, data });
}

/** Hears what other tabs broadcast on `topic`; returns the unsubscribe. */
export function onBroadcast(topic: string, fn: (data: unknown) => void): () => void {
  let set = topics.get(topic);
  if (!set) topics.set(topic, (set = new Set()));
  set.add(fn);
  return () => set.delete(fn);
}
