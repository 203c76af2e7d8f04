import { badRequest } from '../errors.js';

/** Display names: trimmed, 1..`max` characters, no control characters. */
export function cleanName(name: string, what: string, max = 100): string {
  const n = name.trim();
  if (n.length === 0) throw badRequest(`${what} must not be empty`);
  if ([...n].length > max) throw badRequest(`${what} must be at most ${max} characters`);
  if (/[\u0000-\u001f\u007f]/.test(n)) throw badRequest(`${what} must not contain control characters`);
  return n;
}
