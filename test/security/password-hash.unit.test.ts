/** Password hashes carry their scrypt parameters; verification uses them, within bounds. */
import { describe, expect, it } from 'vitest';
import { SCRYPT, hashPassword, passwordNeedsRehash, verifyPassword } from '../../src/crypto.js';

describe('verifyPassword', () => {
  it('checks a hash made with other parameters using the parameters stored in it', async () => {
    for (const params of [
      { N: 1024, r: 8, p: 1 },
      { N: 4096, r: 4, p: 2 },
      { N: 32768, r: 8, p: 1 },
    ]) {
      const h = await hashPassword('correct horse battery', params);
      expect(h.split('$').slice(0, 4)).toEqual(['scrypt', String(params.N), String(params.r), String(params.p)]);
      expect(await verifyPassword('correct horse battery', h)).toBe(true);
      expect(await verifyPassword('correct horse batterY', h)).toBe(false);
      expect(passwordNeedsRehash(h)).toBe(true);
    }
  });

  it('a current hash verifies and needs no rehash', async () => {
    const h = await hashPassword('correct horse battery');
    expect(h.startsWith(`scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$`)).toBe(true);
    expect(await verifyPassword('correct horse battery', h)).toBe(true);
    expect(passwordNeedsRehash(h)).toBe(false);
  });

  it('refuses out-of-bounds or malformed parameters at once instead of running them', async () => {
    const [, , , , salt, key] = (await hashPassword('pw pw pw pw')).split('$');
    const bad = [
      `scrypt$${2 ** 30}$8$1$${salt}$${key}`,
      `scrypt$${2 ** 17}$8$1$${salt}$${key}`, // 128 MiB
      `scrypt$16384$8$16$${salt}$${key}`, // 16 times today's work
      `scrypt$16384$64$1$${salt}$${key}`,
      `scrypt$12345$8$1$${salt}$${key}`,
      `scrypt$1$8$1$${salt}$${key}`,
      `scrypt$16384$8$0$${salt}$${key}`,
      `scrypt$16384$8$1.5$${salt}$${key}`,
      `scrypt$016384$8$1$${salt}$${key}`,
      `scrypt$16384$8$1$${salt}$${key}$extra`,
      `scrypt$16384$8$1$$${key}`,
      `scrypt$16384$8$1$${salt}$`,
      `scrypt$16384$8$1$${salt}$${'A'.repeat(1000)}`,
      '',
      'plain text',
    ];
    for (const h of bad) {
      const started = Date.now();
      expect(await verifyPassword('pw pw pw pw', h), h.slice(0, 30)).toBe(false);
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(passwordNeedsRehash(h)).toBe(true);
    }
  });
});
