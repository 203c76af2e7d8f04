import { lookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Requests this service makes to addresses others chose (a bot's interactionsUrl). The
 * host is resolved here, every address it resolves to is checked, and the connection goes
 * to the checked address itself, so a second lookup (DNS rebinding) cannot send it
 * elsewhere. Unless allowed, only public unicast addresses are reached: no private,
 * loopback, link-local, unique-local, carrier-grade NAT, multicast, unspecified or
 * reserved ones, IPv4 or IPv6 (an IPv4-mapped IPv6 address is judged as its IPv4).
 * Redirects are never followed, answers are size-limited and the whole exchange has a
 * deadline.
 */

/** The address is not one this service may reach, or the URL is not http(s). */
export class OutgoingRefused extends Error {}
/** The request failed: network, deadline, a redirect, a non-2xx status or an oversized answer. */
export class OutgoingFailed extends Error {}

export interface OutgoingOptions {
  /** Reach private and loopback addresses too (OUTGOING_ALLOW_PRIVATE). */
  allowPrivate: boolean;
  /** The whole exchange, connection to the last byte of the answer. */
  timeoutMs: number;
  /** The most answer bytes read. */
  maxBytes: number;
}

/** Whether `address` (an IP literal) is a public unicast address. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'unicast';
}

/** The address to connect to for `url`: resolved once, each answer checked; throws OutgoingRefused. */
export async function resolveTarget(url: URL, allowPrivate: boolean): Promise<{ address: string; family: 4 | 6 }> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutgoingRefused('only http and https URLs are reached');
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  let answers: Array<{ address: string; family: number }>;
  if (isIP(host)) answers = [{ address: host, family: isIP(host) }];
  else {
    try {
      answers = await lookup(host, { all: true, verbatim: true });
    } catch {
      throw new OutgoingFailed(`the host ${host} does not resolve`);
    }
  }
  if (answers.length === 0) throw new OutgoingFailed(`the host ${host} does not resolve`);
  // Every answer must pass: a name that also resolves to a private address is refused whole.
  if (!allowPrivate && answers.some((a) => !isPublicAddress(a.address))) {
    throw new OutgoingRefused(`${host} resolves to an address that is not public`);
  }
  const first = answers[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

/** POSTs `body` as JSON to `target`; resolves with the answer's body (2xx only). */
export async function postJson(
  target: string,
  body: string,
  headers: Record<string, string>,
  opts: OutgoingOptions,
): Promise<{ status: number; body: string }> {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new OutgoingRefused('not a URL');
  }
  const deadline = AbortSignal.timeout(opts.timeoutMs);
  const { address } = await resolveTarget(url, opts.allowPrivate);
  const secure = url.protocol === 'https:';
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return new Promise((resolve, reject) => {
    const req = (secure ? https : http).request({
      // The checked address itself: nothing resolves the name again.
      host: address,
      port: url.port || (secure ? 443 : 80),
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      agent: false,
      signal: deadline,
      // The certificate is checked against the name (SNI takes names only).
      ...(secure && !isIP(hostname) ? { servername: hostname } : {}),
      headers: {
        ...headers,
        host: url.host,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'user-agent': 'Parley (interactions)',
      },
    });
    req.on('error', (err) => reject(deadline.aborted ? new OutgoingFailed('no answer in time') : new OutgoingFailed(err.message)));
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400) {
        res.destroy();
        reject(new OutgoingFailed(`answered with a redirect (${status}), which is not followed`));
        return;
      }
      if (status < 200 || status >= 300) {
        res.destroy();
        reject(new OutgoingFailed(`answered ${status}`));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > opts.maxBytes) {
          res.destroy();
          reject(new OutgoingFailed(`the answer is over ${opts.maxBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => resolve({ status, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', (err) => reject(new OutgoingFailed(err.message)));
    });
    req.end(body);
  });
}
