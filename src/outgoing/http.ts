import { lookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Requests this service makes to addresses others chose (a bot's interactionsUrl). The
 * host is resolved here, every address it resolves to is checked, and the connection goes
 * to the checked address itself, so a second lookup (DNS rebinding) cannot send it
 * elsewhere. Unless allowed, only public unicast addresses are reached: no block of the
 * IANA special-purpose registries, IPv4 or IPv6, and IPv6 only inside global unicast; an
 * IPv6 address that carries an IPv4 one it reaches (IPv4-mapped, NAT64, 6to4) is judged
 * as that IPv4 address.
 * Redirects are never followed, answers are size-limited and the whole exchange has a
 * deadline.
 */

/** The address is not one this service may reach, or the URL is not http(s). */
export class OutgoingRefused extends Error {}

/** The one refusal for a host that does not resolve and for one that resolves to an address not public. */
export const NOT_REACHABLE = 'the host does not resolve to a public address this service may reach';
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

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];
const cidrs = (list: string[]): Cidr[] => list.map((c) => ipaddr.parseCIDR(c));

/**
 * Every IPv4 block of the IANA special-purpose registry (RFC 6890 and later), whether or
 * not the registry calls it globally reachable, plus multicast and the reserved 240/4:
 * none is a place a bot's endpoint should live. Everything else is public unicast.
 */
const V4_REFUSED = cidrs([
  '0.0.0.0/8', // "this network"
  '10.0.0.0/8', // private
  '100.64.0.0/10', // carrier-grade NAT
  '127.0.0.0/8', // loopback
  '169.254.0.0/16', // link-local (cloud metadata)
  '172.16.0.0/12', // private
  '192.0.0.0/24', // IETF protocol assignments (DS-Lite, NAT64 discovery, ...)
  '192.0.2.0/24', // documentation (TEST-NET-1)
  '192.31.196.0/24', // AS112-v4
  '192.52.193.0/24', // AMT
  '192.88.99.0/24', // deprecated 6to4 relay anycast
  '192.168.0.0/16', // private
  '192.175.48.0/24', // AS112 direct delegation
  '198.18.0.0/15', // benchmarking
  '198.51.100.0/24', // documentation (TEST-NET-2)
  '203.0.113.0/24', // documentation (TEST-NET-3)
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved, and 255.255.255.255 broadcast
]);

/**
 * IPv6 is public only inside global unicast (2000::/3), which leaves out ::/128, ::1,
 * IPv4-compatible ::/96, 100::/64 (discard), fc00::/7, fe80::/10, fec0::/10, ff00::/8 and
 * every unassigned block; inside it, these IANA special-purpose blocks are refused too.
 */
const V6_GLOBAL = ipaddr.parseCIDR('2000::/3');
const V6_REFUSED = cidrs([
  '2001::/23', // IETF protocol assignments: Teredo 2001::/32, benchmarking, AMT, AS112, ORCHID(v2), drone tags
  '2001:db8::/32', // documentation
  '2620:4f:8000::/48', // AS112 direct delegation
  '3fff::/20', // documentation
]);

/** Addresses whose IPv4 address is carried inside and reached through: judged as that address. */
const NAT64 = ipaddr.parseCIDR('64:ff9b::/96'); // RFC 6052 well-known prefix: the last 32 bits
const SIX_TO_FOUR = ipaddr.parseCIDR('2002::/16'); // RFC 3056: bits 16 to 48

function within(address: ipaddr.IPv4 | ipaddr.IPv6, ranges: Cidr[]): boolean {
  return ranges.some(([net, bits]) => net.kind() === address.kind() && address.match(net, bits));
}

function ipv4Of(bytes: number[]): ipaddr.IPv4 {
  return new ipaddr.IPv4(bytes);
}

function isPublicV4(address: ipaddr.IPv4): boolean {
  return !within(address, V4_REFUSED);
}

function isPublicV6(address: ipaddr.IPv6): boolean {
  const bytes = address.toByteArray();
  if (address.isIPv4MappedAddress()) return isPublicV4(address.toIPv4Address());
  if (address.match(NAT64)) return isPublicV4(ipv4Of(bytes.slice(12, 16)));
  if (address.match(SIX_TO_FOUR)) return isPublicV4(ipv4Of(bytes.slice(2, 6)));
  // IPv4-compatible (::a.b.c.d, deprecated), local-use NAT64 (64:ff9b:1::/48), ULA, link-local,
  // multicast, discard and the rest lie outside 2000::/3.
  return address.match(V6_GLOBAL) && !within(address, V6_REFUSED);
}

/**
 * Whether `address` (an IP literal in standard notation) is a public unicast address: the
 * rule is written out range by range above and in docs/security.md ("Outgoing requests").
 */
export function isPublicAddress(address: string): boolean {
  // Standard notation only: '127.1' or '0x7f.0.0.1' never come from the resolver, and are not public.
  if (isIP(address) === 0) return false;
  const parsed = ipaddr.parse(address);
  return parsed.kind() === 'ipv4' ? isPublicV4(parsed as ipaddr.IPv4) : isPublicV6(parsed as ipaddr.IPv6);
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
      answers = [];
    }
  }
  // A name that does not resolve is refused in the same words as one that resolves to a
  // private address, so the answers cannot be used to map names inside the network.
  if (answers.length === 0) throw new OutgoingRefused(NOT_REACHABLE);
  // Every answer must pass: a name that also resolves to a private address is refused whole.
  if (!allowPrivate && answers.some((a) => !isPublicAddress(a.address))) throw new OutgoingRefused(NOT_REACHABLE);
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
