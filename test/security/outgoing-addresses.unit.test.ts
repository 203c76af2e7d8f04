import { describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../src/outgoing/http.js';

/**
 * The outgoing address rule (docs/security.md, "Outgoing requests"), literal by literal:
 * every block of the IANA special-purpose registries, and every IPv6 form that carries an
 * IPv4 address, next to public addresses on either side of each boundary.
 */
const PUBLIC = [
  '93.184.216.34',
  '1.1.1.1',
  '8.8.8.8',
  '9.255.255.255', // just below 10/8
  '11.0.0.0', // just above 10/8
  '100.63.255.255', // just below 100.64/10
  '100.128.0.0', // just above it
  '126.255.255.255',
  '128.0.0.0',
  '169.253.255.255',
  '172.15.255.255',
  '172.32.0.0',
  '192.0.1.255',
  '192.0.3.0',
  '192.167.255.255',
  '192.169.0.0',
  '198.17.255.255',
  '198.20.0.0',
  '203.0.112.255',
  '223.255.255.255', // the last unicast address below multicast
  '2606:4700:4700::1111',
  '2a00:1450:4001:80b::200e',
  '2001:4860:4860::8888', // Google, outside 2001::/23
  '2001:200::1', // just above 2001::/23
  '2001:db9::1', // just above documentation
  '::ffff:93.184.216.34', // IPv4-mapped public
  '64:ff9b::5db8:d822', // NAT64 of 93.184.216.34
  '2002:5db8:d822::1', // 6to4 of 93.184.216.34
];

const REFUSED: Array<[string, string]> = [
  // IPv4
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', '"this network" 0/8'],
  ['10.1.2.3', 'private 10/8'],
  ['100.64.0.1', 'carrier-grade NAT'],
  ['100.127.255.255', 'carrier-grade NAT, last'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback, high'],
  ['169.254.169.254', 'link-local (cloud metadata)'],
  ['172.16.0.1', 'private 172.16/12'],
  ['172.31.255.255', 'private 172.16/12, last'],
  ['192.0.0.1', 'IETF protocol assignments'],
  ['192.0.0.170', 'NAT64 discovery'],
  ['192.0.2.1', 'TEST-NET-1'],
  ['192.31.196.1', 'AS112-v4'],
  ['192.52.193.1', 'AMT'],
  ['192.88.99.1', '6to4 relay anycast'],
  ['192.168.1.1', 'private 192.168/16'],
  ['192.175.48.1', 'AS112 direct delegation'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.255', 'benchmarking, last'],
  ['198.51.100.7', 'TEST-NET-2'],
  ['203.0.113.9', 'TEST-NET-3'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast (SSDP)'],
  ['240.0.0.1', 'reserved 240/4'],
  ['255.255.255.255', 'broadcast'],
  // IPv6
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['::7f00:1', 'IPv4-compatible loopback'],
  ['::127.0.0.1', 'IPv4-compatible loopback, dotted'],
  ['::5db8:d822', 'IPv4-compatible, deprecated even for a public IPv4'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
  ['::ffff:7f00:1', 'IPv4-mapped loopback, hex'],
  ['::ffff:10.0.0.1', 'IPv4-mapped private'],
  ['::ffff:169.254.169.254', 'IPv4-mapped metadata'],
  ['::ffff:0:127.0.0.1', 'SIIT (RFC 6145)'],
  ['64:ff9b::7f00:1', 'NAT64 of loopback'],
  ['64:ff9b::a9fe:a9fe', 'NAT64 of metadata'],
  ['64:ff9b::c0a8:101', 'NAT64 of 192.168.1.1'],
  ['64:ff9b:1::5db8:d822', 'local-use NAT64'],
  ['2002:7f00:1::', '6to4 of loopback'],
  ['2002:a00:1::1', '6to4 of 10.0.0.1'],
  ['2002:a9fe:a9fe::1', '6to4 of metadata'],
  ['2001::1', 'Teredo'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo, a real-looking one'],
  ['2001:2::1', 'benchmarking'],
  ['2001:3::1', 'AMT'],
  ['2001:4:112::1', 'AS112-v6'],
  ['2001:10::1', 'ORCHID'],
  ['2001:20::1', 'ORCHIDv2'],
  ['2001:30::1', 'drone remote ID'],
  ['2001:db8::1', 'documentation'],
  ['3fff::1', 'documentation (RFC 9637)'],
  ['2620:4f:8000::1', 'AS112 direct delegation'],
  ['100::1', 'discard'],
  ['5f00::1', 'segment routing SIDs'],
  ['fc00::1', 'unique local'],
  ['fd12:3456::1', 'unique local (fd)'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local with a zone'],
  ['fec0::1', 'deprecated site-local'],
  ['ff02::1', 'multicast'],
  ['ff05::2', 'multicast, site'],
  ['4000::1', 'unassigned, outside global unicast'],
  // Not standard literals
  ['127.1', 'shortened IPv4'],
  ['0x7f.0.0.1', 'hex IPv4'],
  ['2130706433', 'an IPv4 as one number'],
  ['not an address', 'a name'],
  ['', 'nothing'],
];

describe('the outgoing address rule', () => {
  it.each(PUBLIC)('%s is public', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
  it.each(REFUSED)('%s is refused (%s)', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });
});
