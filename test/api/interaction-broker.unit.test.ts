import { describe, expect, it } from 'vitest';
import { Background } from '../../src/domain/background.js';
import { InteractionBroker } from '../../src/domain/interactions/broker.js';
import { TestClock } from '../clock.js';

/** The interaction broker's windows (docs/commands.md) on the injected clock, and its waiters. */

function broker(clock: TestClock, reported: unknown[] = []) {
  const report = (err: unknown) => reported.push(err);
  const settings = { callbackMs: 3_000, tokenTtlMs: 15 * 60_000, allowPrivate: false, shared: false };
  return new InteractionBroker(settings, clock.now, new Background(report), report);
}

describe('InteractionBroker', () => {
  it('reads the callback window and the token life on the clock', () => {
    const clock = new TestClock();
    const b = broker(clock);
    const createdAt = new Date(clock.now()).toISOString();
    expect(b.callbackExpired(createdAt)).toBe(false);
    clock.advance(3_001);
    expect(b.callbackExpired(createdAt)).toBe(true);
    expect(b.tokenExpired(createdAt)).toBe(false);
    clock.advance(15 * 60_000);
    expect(b.tokenExpired(createdAt)).toBe(true);
  });

  it("hands an autocomplete's choices to its waiter, and stop answers the rest with none", async () => {
    const b = broker(new TestClock());
    const first = b.waitForChoices('1', async () => undefined);
    const second = b.waitForChoices('2', async () => undefined);
    expect(b.pending).toBe(4);
    b.answer('1', [{ name: 'Chess', value: 'chess' }]);
    await expect(first).resolves.toEqual([{ name: 'Chess', value: 'chess' }]);
    expect(b.pending).toBe(2);
    b.armWindow('window', async () => {});
    expect(b.pending).toBe(3);
    b.stop();
    await expect(second).resolves.toEqual([]);
    expect(b.pending).toBe(0);
  });

  it('with several instances, finds choices another instance stored', async () => {
    const clock = new TestClock();
    const report = () => {};
    const b = new InteractionBroker(
      { callbackMs: 60_000, tokenTtlMs: 60_000, allowPrivate: false, shared: true },
      clock.now,
      new Background(report),
      report,
    );
    let reads = 0;
    const choices = await b.waitForChoices('1', async () => (++reads >= 2 ? [{ name: 'Go', value: 'go' }] : undefined));
    expect(choices).toEqual([{ name: 'Go', value: 'go' }]);
    expect(reads).toBe(2);
    expect(b.pending).toBe(0);
  });
});
