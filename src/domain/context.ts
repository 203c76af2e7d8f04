import type { EventBus } from '../events/bus.js';
import type { AuthorMember, BusEntry, ChannelEvent, ThreadAudience, TypingEvent } from '../events/types.js';
import type { PdfPages } from '../files/pdf-pages.js';
import type { UploadStore } from '../files/upload-store.js';
import type { Store } from '../store/index.js';
import type { PresenceStatus } from '@parley/protocol';
import type { PermissionCache } from './permissions.js';
import type { AccessCache } from './access-cache.js';
import type { ThreadFacts } from './thread-facts.js';
import type { Background } from './background.js';
import type { InteractionBroker } from './interactions/broker.js';
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
  /** PDFs' first pages (src/files/pdf-pages.ts); absent, none are made. */
  pdfPages?: PdfPages;
  publicUrl: string;
  accounts: AccountSettings;
  /** Storage limits of uploads in bytes (0: none): per uploader (UPLOAD_QUOTA_BYTES) and in all (MAX_UPLOAD_STORAGE). */
  uploadLimits?: { quotaBytes: number; maxStorageBytes: number };
  /**
   * Milliseconds since 1970, as session expiry reads them: tests move it forward instead
   * of waiting for days.
   */
  clock: () => number;
  /** Where failures that must not fail the request (a bus outage) are reported. */
  report: (err: unknown, what: string) => void;
  /** Server permission models per version, shared by every request. */
  perms: PermissionCache;
  /** Identity and channel access read by requests, kept while the access epoch holds. */
  access: AccessCache;
  /** Which channels are threads, with their parent and kind (immutable facts, kept per instance): `threads.ts`. */
  threadFacts: ThreadFacts;
  /** Interactions' windows, timers and waiting autocompletes (docs/commands.md), owned by app.ts. */
  interactions: InteractionBroker;
  /** The owner of work that outlives its request: tracked, failures reported, drained on close. */
  background: Background;
  /** What others see of people's connections (docs/gateway.md#presence); absent, everyone shows offline. */
  presence?: { statuses(userIds: readonly string[]): Promise<Map<string, PresenceStatus>> };
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

/** What messages of a DM store as their server id (the column has no foreign key; no server has id 0). */
export const DM_SERVER_ID = '0';

/** The channel an event of its content belongs to: a server's, or a DM with its recipients. */
export interface ChannelAudience {
  id: string;
  /** Null (or `DM_SERVER_ID`, from a message row) for a DM. */
  serverId: string | null;
  /** A DM's recipients, when at hand; looked up otherwise. */
  recipients?: readonly string[] | null;
  /** A thread's parent and kind, when at hand (a permission check's grant); looked up otherwise. */
  thread?: Pick<ThreadAudience, 'parentId' | 'private'>;
}

/**
 * Who may receive an event of a server channel's content beyond what its channel id says:
 * for a thread, its parent and kind, and a private thread's members (read now, so someone
 * removed from it hears nothing more); undefined for any other channel (docs/threads.md#events).
 */
async function threadAudience(ctx: DomainContext, channel: ChannelAudience): Promise<ThreadAudience | undefined> {
  const fact = channel.thread ?? (await ctx.threadFacts.of(ctx.store, channel.id));
  if (!fact) return undefined;
  if (!fact.private) return { parentId: fact.parentId, private: false };
  return { parentId: fact.parentId, private: true, members: await ctx.store.threadMembers.ids(ctx.store.db, channel.id) };
}

/**
 * Publishes an event of a channel's content: to the server's members who may see it, or,
 * in a DM, to its recipients alone (a `direct` entry). A server message's event carries its
 * author's membership (`author`), for Discord's `member`.
 */
export async function notifyChannel(
  ctx: DomainContext,
  channel: ChannelAudience,
  event: ChannelEvent,
  author?: AuthorMember,
): Promise<void> {
  if (channel.serverId !== null && channel.serverId !== DM_SERVER_ID) {
    const thread = await threadAudience(ctx, channel);
    return notify(ctx, { kind: 'event', serverId: channel.serverId, event, ...(author ? { author } : {}), ...(thread ? { thread } : {}) });
  }
  const recipients = channel.recipients ?? (await ctx.store.dms.recipients(ctx.store.db, [channel.id])).map((r) => r.id);
  return notify(ctx, { kind: 'direct', channelId: channel.id, recipients: [...recipients], event });
}

/** Sends a typing indicator live (`EventBus.signal`: outside the log, never replayed). */
export async function signalTyping(ctx: DomainContext, channel: ChannelAudience, event: TypingEvent): Promise<void> {
  if (channel.serverId !== null && channel.serverId !== DM_SERVER_ID) {
    const thread = await threadAudience(ctx, channel);
    return ctx.bus.signal({ serverId: channel.serverId, event, ...(thread ? { thread } : {}) });
  }
  const recipients = channel.recipients ?? (await ctx.store.dms.recipients(ctx.store.db, [channel.id])).map((r) => r.id);
  ctx.bus.signal({ recipients: [...recipients], event });
}

let isoMs = 0;
let iso = '';

/** Real time, for what runs outside the service (the `parley` command's admin actions). */
export const SYSTEM_CLOCK = { clock: Date.now };

/** The service's time (`ctx.clock`) as an ISO string; formatted once per millisecond (every message asks for it). */
export function nowIso(ctx: { clock: () => number }): string {
  const ms = ctx.clock();
  if (ms !== isoMs) {
    isoMs = ms;
    iso = new Date(ms).toISOString();
  }
  return iso;
}
