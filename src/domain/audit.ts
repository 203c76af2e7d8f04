import type { Tx } from '../store/index.js';
import type { AuditLogTable } from '../store/schema.js';
import type { DomainContext } from './context.js';
import { nowIso } from './context.js';
import type { Caller } from './types.js';

import type { AuditAction } from '@parley/protocol';

function row(
  ctx: DomainContext,
  serverId: string,
  caller: Caller,
  action: AuditAction,
  targetId: string | null,
  changes: Record<string, unknown>,
  reason?: string,
): AuditLogTable {
  return {
    id: ctx.store.ids.next(),
    serverId,
    action,
    actorId: caller.id,
    targetId,
    changes: JSON.stringify(changes),
    reason: reason ?? caller.reason ?? null,
    createdAt: nowIso(ctx),
  };
}

/** Writes an entry in the transaction of the change it records. */
export function auditIn(
  ctx: DomainContext,
  tx: Tx,
  serverId: string,
  caller: Caller,
  action: AuditAction,
  targetId: string | null,
  changes: Record<string, unknown> = {},
  reason?: string,
): Promise<unknown> {
  return ctx.store.auditLog.insert(tx, row(ctx, serverId, caller, action, targetId, changes, reason));
}

/** Writes an entry on its own, for changes whose transaction is not at hand. */
export function audit(
  ctx: DomainContext,
  serverId: string,
  caller: Caller,
  action: AuditAction,
  targetId: string | null,
  changes: Record<string, unknown> = {},
  reason?: string,
): Promise<unknown> {
  return ctx.store.write((tx) => ctx.store.auditLog.insert(tx, row(ctx, serverId, caller, action, targetId, changes, reason)));
}

/** `{field: {old, new}}` for the fields of `patch` that differ from `before`. */
export function diff<T extends object>(before: T, patch: Partial<T>): Record<string, { old: unknown; new: unknown }> {
  const out: Record<string, { old: unknown; new: unknown }> = {};
  for (const [k, v] of Object.entries(patch)) {
    const old = (before as Record<string, unknown>)[k];
    if (v !== undefined && v !== old) out[k] = { old, new: v };
  }
  return out;
}
