/** The quick switcher's matching and order (web/src/lib/quick-switch.ts). */
import { describe, expect, it } from 'vitest';
import { matchScore, rankItems, type SwitcherItem } from '../../web/src/lib/quick-switch.js';

const item = (kind: SwitcherItem['kind'], id: string, name: string, extra: Partial<SwitcherItem> = {}): SwitcherItem => ({
  kind,
  id,
  name,
  path: `/${id}`,
  unread: false,
  mentions: 0,
  ...extra,
});

const names = (items: SwitcherItem[]) => items.map((i) => `${i.kind}:${i.name}`);

describe('matchScore', () => {
  it('ranks the whole name, its start, a word start, anywhere, then letters in order', () => {
    expect(matchScore('general', 'general')).toBe(0);
    expect(matchScore('General', 'gen')).toBe(1);
    expect(matchScore('dev-general', 'gen')).toBe(2);
    expect(matchScore('Big Team', 'team')).toBe(2);
    expect(matchScore('regenerate', 'gen')).toBe(3);
    expect(matchScore('planning', 'plng')).toBe(4);
    expect(matchScore('planning', 'gnp')).toBe(-1);
  });
});

describe('rankItems', () => {
  const items = [
    item('channel', '1', 'random', { where: 'Harbour' }),
    item('channel', '2', 'general', { where: 'Harbour' }),
    item('channel', '3', 'regenerate', { where: 'Orchard' }),
    item('channel', '4', 'general', { where: 'Orchard', unread: true, mentions: 2 }),
    item('dm', '5', 'Gene'),
    item('server', '6', 'Genoa'),
    item('channel', '7', 'ops', { where: 'Orchard' }),
  ];

  it('puts better matches first, then mentioned, unread and recent ones', () => {
    expect(names(rankItems(items, 'gen', ['2']))).toEqual([
      'channel:general', // Orchard's: a mention waits there
      'channel:general',
      'dm:Gene',
      'server:Genoa',
      'channel:regenerate',
    ]);
    expect(rankItems(items, 'gen', ['2'])[0]?.id).toBe('4');
    // Equal otherwise, the recent one first.
    const ranch = item('channel', '8', 'ranch', { where: 'Orchard' });
    expect(rankItems([ranch, ...items], 'ran', []).map((i) => i.id)).toEqual(['8', '1']);
    expect(rankItems([ranch, ...items], 'ran', ['3', '1']).map((i) => i.id)).toEqual(['1', '8']);
  });

  it('keeps one kind after #, @ or *', () => {
    expect(names(rankItems(items, '#gen', []))).toEqual(['channel:general', 'channel:general', 'channel:regenerate']);
    expect(names(rankItems(items, '@gen', []))).toEqual(['dm:Gene']);
    expect(names(rankItems(items, '* gen', []))).toEqual(['server:Genoa']);
  });

  it('with nothing typed, lists recent places (not the current one) and then what waits', () => {
    expect(rankItems(items, '  ', ['1', '7', '2'], ['1', '9']).map((i) => i.id)).toEqual(['7', '2', '4']);
    expect(rankItems(items, '', [])).toEqual([items[3]]);
  });
});
