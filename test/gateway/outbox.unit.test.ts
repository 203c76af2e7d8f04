// The outbox's lanes (src/gateway/outbox.ts), on a stand-in socket whose writes are
// recorded: urgent frames leave at the end of the turn, typing and presence frames wait
// for the lazy flush unless an urgent frame takes them along, and a storm's flush is spread
// over turns. The gateway tests (coalescing.test.ts) check the same over real connections.
import type { Socket } from 'node:net';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { WebSocket } from 'ws';
import { LAZY_MS, Outlet } from '../../src/gateway/outbox.js';

/** A writable that records each write it is handed (one `_writev` of many chunks is one write). */
function fakeSocket() {
  const writes: string[][] = [];
  const socket = new Writable({
    decodeStrings: false,
    write(chunk, _enc, cb) {
      writes.push([chunk.toString('latin1')]);
      cb();
    },
    writev(chunks, cb) {
      writes.push(chunks.map((c) => c.chunk.toString('latin1')));
      cb();
    },
  });
  const outlet = Outlet.of({ _socket: socket, extensions: '' } as unknown as WebSocket)!;
  return { socket: socket as unknown as Socket, outlet, writes };
}

const frame = (text: string) => Buffer.from(text, 'latin1');
/** After what the current turn queued with process.nextTick (the urgent flush). */
const endOfTurn = () => new Promise<void>((r) => process.nextTick(r));

describe('outbox lanes', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'setImmediate'] });
  });
  afterEach(() => {
    // The outbox's lazy timer is module state: let it run, so the next test starts idle.
    vi.runAllTimers();
    vi.useRealTimers();
  });

  it('urgent frames of one turn leave together at its end, in order', async () => {
    const { outlet, writes } = fakeSocket();
    outlet.write(frame('a'), '1}', true);
    outlet.write(frame('b'), '2}', true);
    expect(writes).toEqual([]);
    await endOfTurn(); // the outbox's process.nextTick came first
    expect(writes).toEqual([['a', '1}', 'b', '2}']]);
  });

  it('a lazy frame waits LAZY_MS, unless an urgent one comes first and takes it along ahead of itself', async () => {
    const alone = fakeSocket();
    alone.outlet.write(frame('typing'), '1}', false);
    await endOfTurn();
    expect(alone.writes).toEqual([]);
    vi.advanceTimersByTime(LAZY_MS - 1);
    expect(alone.writes).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(alone.writes).toEqual([['typing', '1}']]);

    const taken = fakeSocket();
    taken.outlet.write(frame('typing'), '1}', false);
    await endOfTurn();
    taken.outlet.write(frame('message'), '2}', true);
    await endOfTurn();
    expect(taken.writes).toEqual([['typing', '1}', 'message', '2}']]);
    // The lazy flush finds nothing more to do for it.
    vi.advanceTimersByTime(LAZY_MS);
    expect(taken.writes.length).toBe(1);
  });

  it('a control frame (ws.send after hold) ends the wait too', async () => {
    const { socket, outlet, writes } = fakeSocket();
    outlet.write(frame('presence'), '1}', false);
    outlet.hold();
    socket.write('ack');
    await endOfTurn();
    expect(writes).toEqual([['presence', '1}', 'ack']]);
  });

  it('a storm is flushed a slice of sockets per turn, so other work runs between slices', async () => {
    const sockets = Array.from({ length: 600 }, () => fakeSocket());
    for (const s of sockets) s.outlet.write(frame('typing'), '1}', false);
    vi.advanceTimersByTime(LAZY_MS);
    const flushed = () => sockets.filter((s) => s.writes.length > 0).length;
    expect(flushed()).toBe(256);
    vi.advanceTimersToNextTimer();
    expect(flushed()).toBe(512);
    vi.advanceTimersToNextTimer();
    expect(flushed()).toBe(600);
  });
});
