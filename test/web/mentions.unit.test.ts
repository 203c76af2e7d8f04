/** The web client's mention helpers: finding mentions in text, and turning a draft's names into ids. */
import { describe, expect, it } from 'vitest';
import { codeRanges, decodeDraft, encodeDraft, findTrigger, inCode, splitMentions } from '../../web/src/lib/mentions.js';
import { toPlainText } from '../../web/src/markdown/plain.js';

describe('splitMentions', () => {
  it('finds users, roles, channels, @everyone and @here', () => {
    expect(splitMentions('hi <@12> and <@!34>, <@&56> in <#78>: @everyone @here')).toEqual([
      'hi ',
      { kind: 'user', id: '12' },
      ' and ',
      { kind: 'user', id: '34' },
      ', ',
      { kind: 'role', id: '56' },
      ' in ',
      { kind: 'channel', id: '78' },
      ': ',
      { kind: 'everyone' },
      ' ',
      { kind: 'here' },
    ]);
  });

  it('leaves near misses as text', () => {
    expect(splitMentions('mail me@everyone.org or <@abc> or <#> or @everyones')).toEqual([
      'mail me@everyone.org or <@abc> or <#> or @everyones',
    ]);
    expect(splitMentions('no mentions')).toEqual(['no mentions']);
  });
});

describe('encodeDraft', () => {
  const alice = { display: '@alice', syntax: '<@1>' };
  const al = { display: '@al', syntax: '<@2>' };
  const annLee = { display: '@Ann Lee', syntax: '<@3>' };
  const ann = { display: '@Ann', syntax: '<@4>' };
  const general = { display: '#general', syntax: '<#5>' };

  it('turns picked names into their syntax, whole names only', () => {
    expect(encodeDraft('@alice and @al, see #general', [alice, al, general])).toBe('<@1> and <@2>, see <#5>');
    expect(encodeDraft('@alice2 @al_x me@alice', [alice, al])).toBe('@alice2 @al_x me@alice');
    expect(encodeDraft('@Ann Lee and @Ann', [ann, annLee])).toBe('<@3> and <@4>');
  });

  it('leaves code alone', () => {
    expect(encodeDraft('`@alice` @alice ```\n@alice\n``` @alice', [alice])).toBe('`@alice` <@1> ```\n@alice\n``` <@1>');
  });

  it('is text unchanged without picks', () => {
    expect(encodeDraft('@alice', [])).toBe('@alice');
  });
});

describe('decodeDraft', () => {
  const names: Record<string, string> = { 'user:1': 'alice', 'user:2': 'bob', 'user:3': 'alice', 'role:4': 'Mods', 'channel:5': 'general' };
  const name = (t: { kind: string; id?: string }) => names[`${t.kind}:${t.id}`] ?? null;
  const roundTrip = (content: string) => {
    const d = decodeDraft(content, name);
    expect(encodeDraft(d.text, d.picks)).toBe(content);
    return d.text;
  };

  it('shows names where the text has ids, and encodes back to the same text', () => {
    const d = decodeDraft('Hey <@2>, ask <@&4> in <#5>', name);
    expect(d.text).toBe('Hey @bob, ask @Mods in #general');
    expect(d.picks).toEqual([
      { display: '@bob', syntax: '<@2>' },
      { display: '@Mods', syntax: '<@&4>' },
      { display: '#general', syntax: '<#5>' },
    ]);
    expect(roundTrip('Hey <@2>, ask <@&4> in <#5>')).toBe('Hey @bob, ask @Mods in #general');
  });

  it('keeps ids it cannot name, ids in code, and names that would not encode back', () => {
    expect(roundTrip('<@9> and `<@2>` and <@2>')).toBe('<@9> and `<@2>` and @bob');
    // Two people called alice: which is which would be lost.
    expect(roundTrip('<@1> <@3>')).toBe('<@1> <@3>');
    // "@bob" written as plain text: encoding would make it a mention.
    expect(roundTrip('@bob is <@2>')).toBe('@bob is <@2>');
    // A name run into a word would not be read back as one.
    expect(roundTrip('<@2>x')).toBe('<@2>x');
  });
});

describe('code ranges and triggers', () => {
  it('reads code as the service does', () => {
    expect(codeRanges('a `b` c ```d``` e')).toEqual([
      [2, 5],
      [8, 15],
    ]);
    expect(codeRanges('a `b\nc` d')).toEqual([]);
    expect(inCode('say `@al', 8)).toBe(true);
    expect(inCode('say `x` @al', 11)).toBe(false);
  });

  it('finds the trigger at the caret', () => {
    expect(findTrigger('hi @al', 6)).toEqual({ char: '@', query: 'al', start: 3 });
    expect(findTrigger('@', 1)).toEqual({ char: '@', query: '', start: 0 });
    expect(findTrigger('see #gen', 8)).toEqual({ char: '#', query: 'gen', start: 4 });
    expect(findTrigger('yes :th', 7)).toEqual({ char: ':', query: 'th', start: 4 });
    // One character after ':' is not enough; an address is not a mention; code is code.
    expect(findTrigger('yes :t', 6)).toBeNull();
    expect(findTrigger('me@al', 5)).toBeNull();
    expect(findTrigger('`@al', 4)).toBeNull();
    expect(findTrigger('@al ice', 7)).toBeNull();
  });
});

describe('toPlainText', () => {
  it('drops marks, keeps code text, hides spoilers, joins lines', () => {
    expect(toPlainText('**bold** and `code`\n> quoted ||secret||')).toBe('bold and code quoted ▒▒▒▒▒');
  });
});
