/**
 * The words of a welcome line (a system message, `type: "join"`: docs/api.md#welcome-lines).
 * Discord's vary; these are Parley's, one chosen per message, the same for every viewer.
 */
const WELCOME_LINES = ['landed', 'joined', 'pizza', 'wild', 'hopped', 'glad', 'showedUp', 'sayHi'] as const;

/** Which welcome line (`message.welcome.<line>`) a join message shows: from its id's time, so every viewer sees the same one. */
export function welcomeLineKey(id: string): (typeof WELCOME_LINES)[number] {
  let n = 0;
  try {
    n = Number((BigInt(id) >> 22n) % BigInt(WELCOME_LINES.length));
  } catch {
    /* not a snowflake: the first line */
  }
  return WELCOME_LINES[n] ?? WELCOME_LINES[0];
}
