import { badRequest } from '../errors.js';

/** Display names: trimmed, 1..`max` characters, no control characters. */
export function cleanName(name: string, what: string, max = 100): string {
  const n = name.trim();
  if (n.length === 0) throw badRequest(`${what} must not be empty`);
  if ([...n].length > max) throw badRequest(`${what} must be at most ${max} characters`);
  if (/[\u0000-\u001f\u007f]/.test(n)) throw badRequest(`${what} must not contain control characters`);
  return n;
}

/** PostgreSQL cannot store U+0000 in text, so no dialect accepts it: a 400, never a 500. */
export function rejectNul(value: string, what: string): void {
  if (value.includes('\u0000')) throw badRequest(`${what} must not contain the NUL character`);
}

/** Avatars are http(s) image URLs of at most 2048 characters; empty means none. */
export function cleanAvatar(avatar: string | null | undefined): string | null {
  if (avatar === undefined || avatar === null || avatar === '') return null;
  let u: URL;
  try {
    u = new URL(avatar);
  } catch {
    throw badRequest('avatar must be an http(s) URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw badRequest('avatar must be an http(s) URL');
  if (avatar.length > 2048) throw badRequest('avatar must be at most 2048 characters');
  if (/[\u0000-\u001f\u007f]/.test(avatar)) throw badRequest('avatar must not contain control characters');
  return avatar;
}
