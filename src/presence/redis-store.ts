import type { ChosenStatus, PresenceStatus } from '@parley/protocol';
import { Redis } from 'ioredis';
import type { PresenceStore } from './store.js';

// One round trip, atomic: record this instance's status of the person, work out what others
// see now over every instance, and answer it if it changed (else false).
// KEYS: 1 the person's hash (instance -> status), 2 the shown hash (person -> status),
// 3 the instance's set of people. ARGV: 1 instance, 2 status ('' = no connection), 3 person.
const SET = `
if ARGV[2] == '' then
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('SREM', KEYS[3], ARGV[3])
else
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  redis.call('SADD', KEYS[3], ARGV[3])
end
local rank = {online = 3, dnd = 2, idle = 1, invisible = 0}
local best = nil
local bestRank = -1
for _, v in ipairs(redis.call('HVALS', KEYS[1])) do
  local r = rank[v] or -1
  if r > bestRank then best = v; bestRank = r end
end
local shown = 'offline'
if best ~= nil and best ~= 'invisible' then shown = best end
local last = redis.call('HGET', KEYS[2], ARGV[3]) or 'offline'
if shown == last then return false end
if shown == 'offline' then redis.call('HDEL', KEYS[2], ARGV[3]) else redis.call('HSET', KEYS[2], ARGV[3], shown) end
return shown
`;

type SetCommand = (k1: string, k2: string, k3: string, instance: string, status: string, userId: string) => Promise<string | null>;

/**
 * Presence shared by every instance through Redis. Each instance keeps a key alive while
 * it runs (refreshed by `sweep`, every few seconds); an instance whose key expired (it
 * crashed) is swept by the others, which set its people's status there to none. A crash
 * thus shows people offline within `aliveMs` plus one sweep.
 */
export class RedisPresenceStore implements PresenceStore {
  private readonly redis: Redis;
  private readonly setCommand: SetCommand;

  constructor(
    url: string,
    private readonly prefix: string,
    private readonly instance: string,
    private readonly report: (err: unknown, what: string) => void,
    private readonly aliveMs = 30_000,
  ) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: true });
    this.redis.on('error', () => {});
    this.redis.defineCommand('parleyPresence', { numberOfKeys: 3, lua: SET });
    const r = this.redis as unknown as { parleyPresence: SetCommand };
    this.setCommand = r.parleyPresence.bind(r);
  }

  private key(...parts: string[]): string {
    return `${this.prefix}presence:${parts.join(':')}`;
  }

  async connect(): Promise<void> {
    await this.redis.connect();
    await this.keepAlive();
  }

  private async keepAlive(): Promise<void> {
    await this.redis.set(this.key('alive', this.instance), '1', 'PX', this.aliveMs);
    await this.redis.sadd(this.key('instances'), this.instance);
  }

  private async setFor(instance: string, userId: string, status: ChosenStatus | null): Promise<PresenceStatus | null> {
    const changed = await this.setCommand(
      this.key('u', userId),
      this.key('shown'),
      this.key('i', instance),
      instance,
      status ?? '',
      userId,
    );
    return (changed as PresenceStatus | null) || null;
  }

  async set(userId: string, status: ChosenStatus | null): Promise<PresenceStatus | null> {
    try {
      return await this.setFor(this.instance, userId, status);
    } catch (err) {
      this.report(err, 'presence store unreachable; the change is not shown');
      return null;
    }
  }

  async get(userIds: readonly string[]): Promise<Map<string, PresenceStatus>> {
    if (userIds.length === 0) return new Map();
    try {
      const values = await this.redis.hmget(this.key('shown'), ...userIds);
      return new Map(userIds.map((id, i) => [id, (values[i] as PresenceStatus | null) ?? 'offline']));
    } catch (err) {
      this.report(err, 'presence store unreachable; members show offline');
      return new Map(userIds.map((id) => [id, 'offline' as const]));
    }
  }

  async sweep(): Promise<Array<[string, PresenceStatus]>> {
    const changes: Array<[string, PresenceStatus]> = [];
    try {
      await this.keepAlive();
      for (const instance of await this.redis.smembers(this.key('instances'))) {
        if (instance === this.instance || (await this.redis.exists(this.key('alive', instance)))) continue;
        for (const userId of await this.redis.smembers(this.key('i', instance))) {
          const changed = await this.setFor(instance, userId, null);
          if (changed) changes.push([userId, changed]);
        }
        await this.redis.del(this.key('i', instance));
        await this.redis.srem(this.key('instances'), instance);
      }
    } catch (err) {
      this.report(err, 'presence sweep failed');
    }
    return changes;
  }

  async close(): Promise<void> {
    try {
      await this.redis.del(this.key('alive', this.instance));
    } catch {
      // The others sweep it once the key expires.
    }
    this.redis.disconnect();
  }
}
