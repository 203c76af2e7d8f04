/**
 * Edits, reactions and deletes racing a delete of the same message (security review,
 * finding 4): the loser answers 404 and publishes nothing, so no event announces a
 * message that no longer exists. The delete runs, over HTTP, exactly between the racing
 * action's read and its write (see interleave.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/domain/messages.js';
import type { Caller } from '../../src/domain/types.js';
import type { BusEntry } from '../../src/events/types.js';
import { call, postMessage, world } from '../factories.js';
import { type TestServer, startServer } from '../harness.js';
import { beforeFirstWrite } from './interleave.js';

let srv: TestServer;
let w: Awaited<ReturnType<typeof world>>;
let bot: Caller;

beforeAll(async () => {
  srv = await startServer({ env: { RATE_LIMITS: 'off' } });
  w = await world(srv.url);
  bot = { id: w.bot.id, name: w.bot.name, bot: true, avatar: null };
});
afterAll(() => srv?.close());

/**
 * Runs `action`, then posts a sentinel message and waits for its MESSAGE_CREATE: the bus
 * is an ordered log, so every event the action published has been dispatched by then.
 */
async function eventsOf(action: () => Promise<unknown>): Promise<{ outcome: PromiseSettledResult<unknown>; events: BusEntry[] }> {
  const events: BusEntry[] = [];
  const isCreateOf = (e: BusEntry, id: string) => e.kind === 'event' && e.event.t === 'MESSAGE_CREATE' && e.event.d.id === id;
  let check: () => void = () => {};
  const unsubscribe = srv.app.ctx.bus.subscribe((_pos, entry) => {
    events.push(entry);
    check();
  });
  try {
    const [outcome] = await Promise.allSettled([action()]);
    const sentinel: string = (await postMessage(srv.url, w.bot.auth, w.channel.id, 'sentinel')).id;
    // The event may be dispatched before or after the HTTP answer arrives.
    await new Promise<void>((resolve) => {
      check = () => {
        if (events.some((e) => isCreateOf(e, sentinel))) resolve();
      };
      check();
    });
    return { outcome: outcome!, events };
  } finally {
    unsubscribe();
  }
}

const deleteOverHttp = (messageId: string) => async () => {
  const r = await call(srv.url, 'DELETE', `/channels/${w.channel.id}/messages/${messageId}`, { auth: w.bot.auth });
  expect(r.status, r.text).toBe(204);
};

/** What was published about `messageId` after it was created (its own MESSAGE_CREATE may still be in flight). */
const eventTypes = (events: BusEntry[], messageId: string) =>
  events.flatMap((e) => {
    if (e.kind !== 'event' || e.event.t === 'MESSAGE_CREATE') return [];
    const d = e.event.d as { id?: string; messageId?: string };
    return d.id === messageId || d.messageId === messageId ? [e.event.t] : [];
  });

describe('actions racing a delete of their message', () => {
  it('an edit whose message is deleted before it writes: 404, and only MESSAGE_DELETE is published', async () => {
    const m = await postMessage(srv.url, w.bot.auth, w.channel.id, 'original');
    const ctx = beforeFirstWrite(srv.app.ctx, deleteOverHttp(m.id));
    const { outcome, events } = await eventsOf(() => messages.edit(ctx, bot, w.channel.id, m.id, { content: 'edited' }));
    expect(outcome.status).toBe('rejected');
    expect((outcome as PromiseRejectedResult).reason).toMatchObject({ status: 404 });
    expect(eventTypes(events, m.id)).toEqual(['MESSAGE_DELETE']);
  });

  it('a reaction whose message is deleted before it writes: 404, and no REACTION_ADD', async () => {
    const m = await postMessage(srv.url, w.bot.auth, w.channel.id, 'react to me');
    const ctx = beforeFirstWrite(srv.app.ctx, deleteOverHttp(m.id));
    const { outcome, events } = await eventsOf(() => messages.toggleReaction(ctx, bot, w.channel.id, m.id, '👍'));
    expect(outcome.status).toBe('rejected');
    expect((outcome as PromiseRejectedResult).reason).toMatchObject({ status: 404, message: 'message not found' });
    expect(eventTypes(events, m.id)).toEqual(['MESSAGE_DELETE']);
  });

  it('a delete whose message another delete removed first: 404, and MESSAGE_DELETE is published once', async () => {
    const m = await postMessage(srv.url, w.bot.auth, w.channel.id, 'delete me');
    const ctx = beforeFirstWrite(srv.app.ctx, deleteOverHttp(m.id));
    const { outcome, events } = await eventsOf(() => messages.delete(ctx, bot, w.channel.id, m.id));
    expect(outcome.status).toBe('rejected');
    expect((outcome as PromiseRejectedResult).reason).toMatchObject({ status: 404 });
    expect(eventTypes(events, m.id)).toEqual(['MESSAGE_DELETE']);
  });

  it('without a racing delete the same calls succeed and publish their events', async () => {
    const m = await postMessage(srv.url, w.bot.auth, w.channel.id, 'calm');
    const { outcome, events } = await eventsOf(async () => {
      await messages.edit(srv.app.ctx, bot, w.channel.id, m.id, { content: 'edited' });
      await messages.toggleReaction(srv.app.ctx, bot, w.channel.id, m.id, '👍');
      await messages.delete(srv.app.ctx, bot, w.channel.id, m.id);
    });
    expect(outcome.status).toBe('fulfilled');
    expect(eventTypes(events, m.id)).toEqual(['MESSAGE_UPDATE', 'REACTION_ADD', 'MESSAGE_DELETE']);
  });
});
