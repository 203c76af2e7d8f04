import type { EventBus } from '../events/bus.js';
import type { BusEntry } from '../events/types.js';
import type { UploadStore } from '../files/upload-store.js';
import type { Store } from '../store/index.js';
import type { PermissionCache } from './permissions.js';
import type { RegistrationMode } from '../config.js';

/** The instance's account settings (SESSION_TTL_DAYS, REGISTRATION). */
export interface AccountSettings {
  sessionTtlMs: number;
  registration: RegistrationMode;
}

/** What domain actions need: the store, the bus, the upload store, the public base URL and the account settings. */
export interface DomainContext {
  store: Store;
  bus: EventBus;
  files: UploadStore;
  publicUrl: string;
  accounts: AccountSettings;
  /**
   * Milliseconds since 1970, as session expiry reads them: tests move it forward instead
   * of waiting for days.
   */
  clock: () => number;
  /** Where failures that must not fail the request (a bus outage) are reported. */
  report: (err: unknown, what: string) => void;
  /** Server permission models per version, shared by every request. */
  perms: PermissionCache;
}

/**
 * Publishes after the commit the caller has already awaited. A bus failure does not undo
 * a durable write, so it is reported, not thrown.
 */
export async function notify(ctx: DomainContext, entry: BusEntry): Promise<void> {
  try {
    await ctx.bus.publish(entry);
  } catch (err) {
    ctx.report(err, 'event publish failed');
  }
}

export function nowIso(): string {
  return new Date().toISOString();
}
