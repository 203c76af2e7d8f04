/**
 * Secrets are recognised by what they are, not by the route they arrived on. Parley's
 * credentials end in a secret of 32 random bytes as base64url (43 characters): session
 * and bot tokens are `<id>.<secret>`, webhook URLs `/webhooks/<id>/<secret>`. A path such
 * as `/%77ebhooks/…`, `//webhooks/…` or `/api/v10/webhooks/…` carries the same secret,
 * so every log line is scrubbed of such runs, wherever they appear.
 */

/** One base64url character, literally or percent-encoded (Fastify decodes `%41` in a path to `A`). */
const B64URL_UNIT = '(?:[A-Za-z0-9_-]|%(?:3[0-9]|[46][1-9A-Fa-f]|[57][0-9Aa]|2[Dd]|5[Ff]))';
/** A run long enough to hold a secret: 32 characters are 192 bits. */
const SECRET_RUN = new RegExp(`${B64URL_UNIT}{32,}`, 'g');
const ESCAPE = /%([0-9A-Fa-f]{2})/g;

/** Headers whose whole value is a credential, whatever its scheme (Basic has no long run). */
const CREDENTIAL_HEADER = /"(authorization|proxy-authorization|cookie|set-cookie)":("(?:[^"\\]|\\.)*"|\[(?:"(?:[^"\\]|\\.)*",?)*\])/gi;

export const REDACTED = '[redacted]';

/**
 * A run is a secret when it mixes upper- and lower-case letters. Random base64url of 43
 * characters lacks either with a probability of about 4·10⁻¹⁰; long identifiers that are
 * not secrets (host names, `FST_ERR_…` codes, hex digests) usually use one case only.
 */
function looksRandom(run: string): boolean {
  const plain = run.includes('%') ? run.replace(ESCAPE, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))) : run;
  return /[a-z]/.test(plain) && /[A-Z]/.test(plain);
}

/** Replaces every secret-shaped run in `text` (a URL, a message, a whole log line). */
export function redactSecrets(text: string): string {
  return text.replace(SECRET_RUN, (run) => (looksRandom(run) ? REDACTED : run));
}

/** A Buffer as JSON: its bytes as numbers, which no text scrubbing could see into. */
const SERIALIZED_BUFFER = /\{"type":"Buffer","data":\[[\d,]*\]\}/g;

/** Scrubs one serialized (JSON) log line: buffers, credential headers by name, then secrets by shape. */
export function redactLogLine(line: string): string {
  return redactSecrets(
    line.replace(SERIALIZED_BUFFER, `"${REDACTED}"`).replace(CREDENTIAL_HEADER, (_, name: string) => `"${name}":"${REDACTED}"`),
  );
}

/** Where log lines go: stdout by default, a test's capture otherwise. */
export interface LogDestination {
  write(line: string): unknown;
}

/**
 * Wraps the destination so that nothing pino writes (messages, bindings, serialized
 * errors, objects logged by plugins such as @fastify/multipart at `trace`) reaches it
 * unscrubbed. Scrubbing the finished line, not the objects, leaves no path around it.
 */
export function redactingDestination(out: LogDestination = process.stdout): LogDestination {
  return { write: (line: string) => out.write(redactLogLine(line)) };
}
