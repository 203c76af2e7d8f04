import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'; // Crockford base32

let lastTime = 0;
let lastRandom: Uint8Array = new Uint8Array(10);

/**
 * A ULID: 48-bit millisecond time then 80 random bits, 26 characters that sort by
 * creation time. Monotonic within this process (same millisecond → random part + 1),
 * so `before`/`after` paging never skips a message created in the same millisecond.
 */
export function newId(now = Date.now()): string {
  let rand: Uint8Array;
  if (now <= lastTime) {
    now = lastTime;
    rand = lastRandom.slice();
    for (let i = rand.length - 1; i >= 0; i--) {
      rand[i] = (rand[i]! + 1) & 0xff;
      if (rand[i] !== 0) break;
    }
  } else {
    rand = randomBytes(10);
  }
  lastTime = now;
  lastRandom = rand;
  let out = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[t % 32]! + out;
    t = Math.floor(t / 32);
  }
  // 80 bits → 16 base32 characters, 5 bits at a time.
  let bits = 0;
  let acc = 0;
  for (const byte of rand) {
    acc = (acc << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(acc >> (bits - 5)) & 31]!;
      bits -= 5;
    }
    acc &= (1 << bits) - 1;
  }
  return out;
}

/** True when `s` has the shape of an id made by `newId`. */
export function isId(s: string): boolean {
  return /^[0-9A-HJKMNP-TV-Z]{26}$/.test(s);
}
