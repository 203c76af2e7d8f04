/**
 * A small seeded PRNG (sfc32, seeded through a string hash). Every request gets a
 * generator of its own, seeded with (seed, phase, index), so one request can be
 * regenerated without replaying all those before it.
 */

/** 32-bit FNV-1a over the string, then mixed: four distinct words of state from one seed. */
function seedWords(seed: string): [number, number, number, number] {
  let h = 0x811c9dc5;
  for (let i = 0; i < seed.length; i++) {
    h ^= seed.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  const words: number[] = [];
  for (let i = 0; i < 4; i++) {
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
    words.push(h >>> 0);
    h = (h + 0x9e3779b9) | 0;
  }
  return words as [number, number, number, number];
}

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: string) {
    [this.a, this.b, this.c, this.d] = seedWords(seed);
    // sfc32 needs a few rounds before its output is well mixed.
    for (let i = 0; i < 12; i++) this.next();
  }

  /** A float in [0, 1). */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** Picks by weight: `[[weight, value], ...]`. */
  weighted<T>(choices: ReadonlyArray<readonly [number, T]>): T {
    const total = choices.reduce((s, [w]) => s + w, 0);
    let r = this.next() * total;
    for (const [w, v] of choices) {
      r -= w;
      if (r < 0) return v;
    }
    return choices[choices.length - 1]![1];
  }

  /** A string of `n` characters drawn from `alphabet`. */
  string(n: number, alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789'): string {
    let s = '';
    for (let i = 0; i < n; i++) s += alphabet[Math.floor(this.next() * alphabet.length)];
    return s;
  }

  bytes(n: number): Buffer {
    const b = Buffer.alloc(n);
    for (let i = 0; i < n; i++) b[i] = Math.floor(this.next() * 256);
    return b;
  }
}
