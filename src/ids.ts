import { isSnowflake, MAX_SEQUENCE, MAX_WORKER, SEQUENCE_BITS, SNOWFLAKE_EPOCH, WORKER_BITS } from '@parley/protocol';
import { AppError } from './errors.js';

export { compareIds, snowflakeAt } from '@parley/protocol';

/** True when `s` has the shape of an id: a snowflake as a decimal string. */
export const isId: (s: string) => boolean = isSnowflake;

/**
 * True when `s` is a ULID, the id format before snowflakes (0004_snowflakes). Old
 * webhook URLs, tokens and upload links carry them; `legacy_ids` maps them to snowflakes.
 */
export function isLegacyId(s: string): boolean {
  return s.length === 26 && /^[0-9A-HJKMNP-TV-Z]{26}$/.test(s);
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** The millisecond (since 1970) a ULID was made in. */
export function legacyIdTime(id: string): number {
  let ms = 0;
  for (let i = 0; i < 10; i++) ms = ms * 32 + CROCKFORD.indexOf(id[i]!);
  return ms;
}

const WORKER_SHIFT = BigInt(SEQUENCE_BITS);
const TIME_SHIFT = BigInt(WORKER_BITS + SEQUENCE_BITS);

/**
 * Issues snowflakes for one worker number. Time never goes backwards here: the clock
 * stepping back (NTP, a VM resumed) leaves the generator on the last millisecond it used,
 * counting the sequence on; a sequence exhausted within a millisecond borrows the next
 * one. So ids are unique and increasing in issue order whatever the clock does.
 *
 * The worker number comes from a lease (src/store/worker-lease.ts) that is valid until
 * `validUntil`: no id is issued for a millisecond past it, because after that the number
 * may belong to another instance. The next holder starts after the old lease's end.
 */
export class SnowflakeGenerator {
  private lastMs = -1;
  private sequence = 0;
  private workerBits = 0n;
  private leaseEnd = 0;

  constructor(
    /** Milliseconds since 1970; injectable so tests can step it. */
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * Takes a lease: worker `worker`, issuing ids for no millisecond past `validUntil` (ms
   * since 1970) and none at or before `startAfter` (where the number's previous holder
   * may have stopped).
   */
  lease(worker: number, validUntil: number, startAfter = 0): void {
    if (!Number.isInteger(worker) || worker < 0 || worker > MAX_WORKER) throw new Error(`worker must be 0..${MAX_WORKER}`);
    const bits = BigInt(worker) << WORKER_SHIFT;
    // Never behind what this generator or the number's previous holder issued. A sequence
    // at its end moves the next id to the following millisecond: past `startAfter`, and
    // after a change of number past this millisecond too, so ids keep increasing here
    // (a smaller number in the same millisecond would sort before ids already issued).
    if (bits !== this.workerBits || startAfter > this.lastMs) this.sequence = MAX_SEQUENCE;
    this.lastMs = Math.max(this.lastMs, startAfter);
    this.workerBits = bits;
    this.leaseEnd = validUntil;
  }

  /** Moves the current lease's last usable millisecond. */
  renew(validUntil: number): void {
    this.leaseEnd = validUntil;
  }

  /** The worker number in use. */
  get worker(): number {
    return Number(this.workerBits >> WORKER_SHIFT);
  }

  /** The last millisecond an id was issued for: where the next holder must start after. */
  get highWater(): number {
    return this.lastMs;
  }

  /** The next id. Throws a 503 when the lease has run out (the database is unreachable). */
  next(): string {
    let ms = this.clock();
    let sequence = 0;
    if (ms <= this.lastMs) {
      ms = this.lastMs;
      sequence = this.sequence + 1;
      if (sequence > MAX_SEQUENCE) {
        ms++;
        sequence = 0;
      }
    }
    // Refused without a trace: the state moves only when an id is issued.
    if (ms > this.leaseEnd) throw new AppError('service_unavailable', 'the id lease has expired: the database is unreachable');
    this.lastMs = ms;
    this.sequence = sequence;
    return ((BigInt(ms - SNOWFLAKE_EPOCH) << TIME_SHIFT) | this.workerBits | BigInt(sequence)).toString();
  }
}
