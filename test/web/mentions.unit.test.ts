/** The web client's mention helpers: finding mentions in text, and turning a draft's names into ids. */
import { describe, expect, it } from 'vitest';
import { codeRanges, encodeDraft, findTrigger, inCode, splitMentions } from '../../web/src/lib/mentions.js';
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
