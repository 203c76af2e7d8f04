/** The words of a welcome line (web/src/lib/welcome.ts): varied, and the same for every viewer of one message. */
import { describe, expect, it } from 'vitest';
import { welcomeLineKey } from '../../web/src/lib/welcome.js';

/** A snowflake made at `ms` after Parley's epoch. */
const at = (ms: number) => String(BigInt(ms) << 22n);

describe('welcome lines', () => {
  it('vary from one join to the next, and each message keeps its own', () => {
    const keys = Array.from({ length: 8 }, (_, i) => welcomeLineKey(at(1_000_000 + i)));
    expect(new Set(keys).size).toBe(8);
    expect(welcomeLineKey(at(1_000_003))).toBe(keys[3]);
    // The sequence bits do not change the line: two joins in one millisecond read alike.
    expect(welcomeLineKey(String((BigInt(1_000_003) << 22n) | 5n))).toBe(keys[3]);
  });

  it('falls back to the first line for an id that is not a snowflake', () => {
    expect(welcomeLineKey('not an id')).toBe(welcomeLineKey(at(0)));
  });
});
