/** The sidebar's channel order and the moves a reorder sends (web/src/lib/channel-order.ts; docs/api.md#categories). */
import { describe, expect, it } from 'vitest';
import type { Channel } from '@parley/protocol';
import { channelGroups, isSynced, moveTo, sidebarOrder, stepMove } from '../../web/src/lib/channel-order.js';

const ch = (id: string, position: number, extra: Partial<Channel> = {}): Channel => ({
  id,
  serverId: '1',
  name: `c${id}`,
  createdAt: '2026-01-01T00:00:00.000Z',
  position,
  type: 'text',
  parentId: null,
  ...extra,
});
const cat = (id: string, position: number) => ch(id, position, { type: 'category', name: `cat${id}` });

// Uncategorised 10, 11; category 20 holds 21, 22; category 30 holds 31; a channel whose category is gone (41).
const categories = [cat('30', 1), cat('20', 0)];
const channels = [
  ch('11', 1),
  ch('10', 0),
  ch('22', 1, { parentId: '20' }),
  ch('21', 0, { parentId: '20' }),
  ch('31', 0, { parentId: '30' }),
  ch('41', 2, { parentId: '40' }),
];

describe('channel order', () => {
  it('lists uncategorised channels first (an unknown parent counts as none), then each category by position', () => {
    expect(sidebarOrder(channels, categories).map((c) => c.id)).toEqual(['10', '11', '41', '21', '22', '31']);
    expect(channelGroups(channels, categories).map((g) => g.category?.id ?? null)).toEqual([null, '20', '30']);
  });

  it('moveTo renumbers the target group only, with the parent for a channel that changes category', () => {
    expect(moveTo(channels, categories, '10', '20', 1)).toEqual([
      { id: '10', position: 1, parentId: '20' },
      { id: '22', position: 2 },
    ]);
    expect(moveTo(channels, categories, '30', null, 0)).toEqual([
      { id: '30', position: 0 },
      { id: '20', position: 1 },
    ]);
  });

  it('stepMove steps within a group, across its edge into the next group, and not past the ends', () => {
    expect(stepMove(channels, categories, '21', 1)).toEqual([
      { id: '22', position: 0 },
      { id: '21', position: 1 },
    ]);
    expect(stepMove(channels, categories, '22', 1)).toEqual([
      { id: '22', position: 0, parentId: '30' },
      { id: '31', position: 1 },
    ]);
    // Up out of the first category: the end of the uncategorised channels (the one whose category is gone is put there for good).
    expect(stepMove(channels, categories, '21', -1)).toEqual([
      { id: '41', position: 2, parentId: null },
      { id: '21', position: 3, parentId: null },
    ]);
    expect(stepMove(channels, categories, '10', -1)).toEqual([]);
    expect(stepMove(channels, categories, '30', 1)).toEqual([]);
  });

  it('isSynced compares overwrites as sets', () => {
    const o = (id: string, deny: string) => ({ id, type: 'role' as const, allow: '0', deny });
    const parent = { ...cat('20', 0), permissionOverwrites: [o('1', '1024'), o('2', '0')] };
    expect(isSynced({ ...ch('21', 0), permissionOverwrites: [o('2', '0'), o('1', '1024')] }, parent)).toBe(true);
    expect(isSynced({ ...ch('21', 0), permissionOverwrites: [o('1', '1024')] }, parent)).toBe(false);
    expect(isSynced(ch('21', 0), undefined)).toBe(false);
  });
});
