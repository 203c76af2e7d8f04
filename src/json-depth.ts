/**
 * The nesting limit of every JSON document Parley accepts (request bodies, `payload_json`,
 * Slack's and GitHub's `payload=`). V8's JSON.parse is iterative and accepts any depth,
 * but JSON.stringify and every recursive walk afterwards (idempotency fingerprints,
 * validation, storage) run on the native stack and fail with a RangeError on a few
 * thousand levels. Nothing legitimate comes near this: Discord embeds need fewer than 10.
 */
export const MAX_JSON_DEPTH = 64;

const OPEN_OBJECT = 0x7b; // {
const OPEN_ARRAY = 0x5b; // [
const CLOSE_OBJECT = 0x7d; // }
const CLOSE_ARRAY = 0x5d; // ]
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \

/**
 * True when `text`, read as JSON, nests objects and arrays deeper than `max`. One pass
 * without recursion, so it is safe on any input; brackets inside strings do not count.
 * It does not validate: malformed text is left to the parser to refuse.
 */
export function jsonTooDeep(text: string, max = MAX_JSON_DEPTH): boolean {
  // Nesting needs an opening bracket per level: text with at most `max` of them (inside
  // strings or not) cannot be too deep, and the native search for them is ten times
  // faster than the walk below, which every request body would otherwise pay.
  let opens = 0;
  for (let i = text.indexOf('{'); i !== -1 && opens <= max; i = text.indexOf('{', i + 1)) opens++;
  for (let i = text.indexOf('['); i !== -1 && opens <= max; i = text.indexOf('[', i + 1)) opens++;
  if (opens <= max) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > max) return true;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
    }
  }
  return false;
}

/** The message of the 400 for a document nested too deeply; `what` names it ("request body"). */
export function tooDeepMessage(what: string): string {
  return `${what} is nested more than ${MAX_JSON_DEPTH} levels deep`;
}
