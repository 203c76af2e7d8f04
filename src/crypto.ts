import { createPrivateKey, generateKeyPairSync, hash, randomBytes, scrypt, sign, timingSafeEqual } from 'node:crypto';

/** A high-entropy secret, URL-safe (32 random bytes). */
export function newSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** SHA-256 of a high-entropy token: enough for random secrets, which cannot be guessed offline. */
export function hashToken(token: string): string {
  // The one-shot digest: no Hash object, no Buffer (about half the cost; every bot request pays it).
  return hash('sha256', token, 'base64url');
}

/** Constant-time check of a presented token against its stored hash. */
export function tokenMatches(presented: string, storedHash: string): boolean {
  const a = Buffer.from(hashToken(presented));
  const b = Buffer.from(storedHash);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** scrypt cost parameters; a stored hash carries its own, so these can be raised later. */
export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/** The parameters new hashes are made with. */
export const SCRYPT: Readonly<ScryptParams> = { N: 16384, r: 8, p: 1 };
const KEYLEN = 32;
const SALT_BYTES = 16;
// scrypt needs about 128·N·r bytes; above this Node refuses (and so would a hostile hash).
const MAX_MEMORY = 64 * 1024 * 1024;
// A stored hash may cost at most this many times the current parameters: enough to read
// hashes from a stronger past setting, too little for a planted hash to stall the process.
const MAX_COST_FACTOR = 8;

function scryptAsync(password: string, salt: Buffer, keylen: number, params: ScryptParams): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, keylen, { N: params.N, r: params.r, p: params.p, maxmem: MAX_MEMORY + 1024 * 1024 }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

/** Password hash as `scrypt$N$r$p$salt$hash` (salted, slow; passwords are low-entropy). */
export async function hashPassword(password: string, params: ScryptParams = SCRYPT): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await scryptAsync(password, salt, KEYLEN, params);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

interface ParsedHash {
  params: ScryptParams;
  salt: Buffer;
  key: Buffer;
}

const DECIMAL = /^[1-9][0-9]{0,9}$/;

/**
 * A stored hash's parts, or null when it is malformed or its parameters are out of
 * bounds: N a power of two ≥ 2, r and p small, memory and total cost capped, so a hash
 * written by someone with database access cannot turn a login into a denial of service.
 */
function parseHash(stored: string): ParsedHash | null {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [, nText, rText, pText, saltB64, keyB64] = parts as [string, string, string, string, string, string];
  if (!DECIMAL.test(nText) || !DECIMAL.test(rText) || !DECIMAL.test(pText)) return null;
  const params = { N: Number(nText), r: Number(rText), p: Number(pText) };
  if (params.N < 2 || (params.N & (params.N - 1)) !== 0 || params.N > 2 ** 20) return null;
  if (params.r > 32 || params.p > 16) return null;
  if (128 * params.N * params.r > MAX_MEMORY) return null;
  if (params.N * params.r * params.p > MAX_COST_FACTOR * SCRYPT.N * SCRYPT.r * SCRYPT.p) return null;
  const salt = Buffer.from(saltB64, 'base64url');
  const key = Buffer.from(keyB64, 'base64url');
  if (salt.length < 8 || salt.length > 64 || key.length < 16 || key.length > 64) return null;
  return { params, salt, key };
}

/**
 * Constant-time check of a password against `hashPassword`'s output, with the parameters
 * stored in the hash. A malformed or out-of-bounds hash matches nothing.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseHash(stored);
  if (!parsed) return false;
  const key = await scryptAsync(password, parsed.salt, parsed.key.length, parsed.params);
  return timingSafeEqual(key, parsed.key);
}

/** True when a (verified) hash was made with other parameters than today's, so it should be remade. */
export function passwordNeedsRehash(stored: string): boolean {
  const parsed = parseHash(stored);
  if (!parsed) return true;
  const { params, salt, key } = parsed;
  return params.N !== SCRYPT.N || params.r !== SCRYPT.r || params.p !== SCRYPT.p || salt.length !== SALT_BYTES || key.length !== KEYLEN;
}

/** A credential of the form `<id>.<secret>`: the id finds the row, the secret is checked against its hash. */
export function splitToken(token: string): { id: string; secret: string } | null {
  const dot = token.indexOf('.');
  if (dot <= 0 || dot === token.length - 1) return null;
  return { id: token.slice(0, dot), secret: token.slice(dot + 1) };
}

/** An Ed25519 signature (hex) of `message` with a PKCS #8 DER private key given as base64. */
export function signEd25519(privateKeyDer: string, message: string): string {
  const key = createPrivateKey({ key: Buffer.from(privateKeyDer, 'base64'), format: 'der', type: 'pkcs8' });
  return sign(null, Buffer.from(message), key).toString('hex');
}

/** A new Ed25519 key pair: the public key as 32 bytes of hex (as Discord shows it), the private key as PKCS #8 DER, base64. */
export function newBotKeys(): { public_key: string; private_key: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  return { public_key: raw.toString('hex'), private_key: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64') };
}
