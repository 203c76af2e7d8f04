/**
 * Schema-free, so the web client can import it (`@parley/protocol/ids`) without TypeBox.
 *
 * Ids are snowflakes, as Discord's: a 64-bit integer sent as a decimal string,
 * `(milliseconds since SNOWFLAKE_EPOCH) << 22 | worker << 12 | sequence`. They sort by
 * creation time when compared as numbers (`compareIds`), never as strings.
 */
export const SNOWFLAKE_EPOCH = 1_420_070_400_000; // 2015-01-01T00:00:00Z, Discord's epoch

/** Bits of the worker number and of the per-millisecond sequence. */
export const WORKER_BITS = 10;
export const SEQUENCE_BITS = 12;
export const MAX_WORKER = (1 << WORKER_BITS) - 1;
export const MAX_SEQUENCE = (1 << SEQUENCE_BITS) - 1;

/** The largest id PostgreSQL's signed bigint holds: 2^63 - 1. */
const MAX_ID = '9223372036854775807';

/** True when `s` is a snowflake as the API writes them: decimal, no leading zero, fits 63 bits. */
export function isSnowflake(s: string): boolean {
  if (!/^(0|[1-9][0-9]{0,18})$/.test(s)) return false;
  return s.length < 19 || s <= MAX_ID;
}

/** Orders two snowflakes numerically (as `Array.prototype.sort` wants): shorter is smaller. */
export function compareIds(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The creation time of a snowflake, in milliseconds since 1970. */
export function snowflakeTime(id: string): number {
  return Number(BigInt(id) >> BigInt(WORKER_BITS + SEQUENCE_BITS)) + SNOWFLAKE_EPOCH;
}

/**
 * The smallest snowflake of millisecond `ms` (since 1970): `before`/`after` bounds that
 * page by time, as Discord's clients do.
 */
export function snowflakeAt(ms: number): string {
  return (BigInt(Math.max(0, ms - SNOWFLAKE_EPOCH)) << BigInt(WORKER_BITS + SEQUENCE_BITS)).toString();
}
