/**
 * The people this person blocked (docs/api.md#direct-messages, "What a block does"): loaded
 * once a session, changed from a profile card or the account page, and told to the other
 * tabs (the gateway has no event for blocks). The message list folds a blocked person's
 * messages away; that is the client's own choice, described in the same section.
 */
import type { PublicUser } from '@parley/protocol';
import { api, seg } from '../api/client';
import { broadcast, onBroadcast } from '../lib/tabs';
import { store, useStore } from './store';

const { dispatch, getState } = store;

let request: Promise<PublicUser[]> | null = null;

/** Loads the block list, sharing a request already on its way. */
export function loadBlocks(): Promise<PublicUser[]> {
  request ??= api
    .get<PublicUser[]>('/users/@me/blocks')
    .then((users) => {
      dispatch({ type: 'blocks/set', users });
      return users;
    })
    .finally(() => {
      request = null;
    });
  return request;
}

function tellOtherTabs(): void {
  broadcast('blocks', Object.values(getState().blocked ?? {}));
}

export async function blockUser(user: PublicUser): Promise<void> {
  await api.put(`/users/@me/blocks/${seg(user.id)}`);
  dispatch({ type: 'block/add', user: { id: user.id, name: user.name, bot: user.bot, avatar: user.avatar } });
  tellOtherTabs();
}

export async function unblockUser(userId: string): Promise<void> {
  await api.delete(`/users/@me/blocks/${seg(userId)}`);
  dispatch({ type: 'block/remove', userId });
  tellOtherTabs();
}

/** Whether this person blocked `userId` (false until the list has loaded). */
export function useBlocked(userId: string | undefined): boolean {
  return useStore((s) => !!userId && !!s.blocked?.[userId]);
}

/** Loads the list for the session and follows the other tabs' changes; returns the cleanup. */
export function startBlocks(): () => void {
  if (!getState().blocked) loadBlocks().catch(() => undefined);
  return onBroadcast('blocks', (data) => {
    if (Array.isArray(data)) dispatch({ type: 'blocks/set', users: data as PublicUser[] });
  });
}
