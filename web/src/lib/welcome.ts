/**
 * The words of a welcome line (a system message, `type: "join"`: docs/api.md#welcome-lines).
 * Discord's vary; these are Parley's, one chosen per message, the same for every viewer.
 */
const WELCOME_LINES = [
  'message.welcome.landed',
  'message.welcome.joined',
  'message.welcome.pizza',
  'message.welcome.wild',
  'message.welcome.hopped',
  'message.welcome.glad',
  'message.welcome.showedUp',
  'message.welcome.sayHi',
] as const;

/** Which welcome line a join message shows: from its id's time, so every viewer sees the same one. */
export function welcomeLineKey(id: string): (typeof WELCOME_LINES)[number] {
  let n = 0;
  try {
    n = Number((BigInt(id) >> 22n) % BigInt(WELCOME_LINES.length));
  } catch {
    /* not a snowflake: the first line */
  }
  return WELCOME_LINES[n] ?? WELCOME_LINES[0];
}
