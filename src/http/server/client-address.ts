import { BlockList, isIP } from 'node:net';
import { type TrustProxy, trustedRanges } from '../../config.ts';

/** The decision proxy-addr (inside Fastify) asks of each hop; 0 is the TCP peer. */
export type TrustFunction = (address: string, hop: number) => boolean;

/** The function Fastify's `trustProxy` option takes, and the fast path uses, for one setting. */
export function trustFunction(setting: TrustProxy): TrustFunction | false {
  if (setting === false) return false;
  if (typeof setting === 'number') return setting > 0 ? (_address, hop) => hop < setting : false;
  const list = new BlockList();
  for (const entry of setting) {
    for (const range of trustedRanges(entry) ?? []) {
      const [network = '', prefix = ''] = range.split('/');
      list.addSubnet(network, Number(prefix), isIP(network) === 4 ? 'ipv4' : 'ipv6');
    }
  }
  // BlockList matches IPv4-mapped IPv6 peers (::ffff:10.0.0.1) against IPv4 ranges too.
  return (address) => {
    const family = isIP(address);
    return family !== 0 && list.check(address, family === 4 ? 'ipv4' : 'ipv6');
  };
}

/**
 * The client's address as Fastify's `request.ip` gives it (proxy-addr's walk): from the TCP
 * peer back through X-Forwarded-For, the first hop not handed over by a trusted address.
 */
export function clientAddress(peer: string, forwardedFor: string | string[] | undefined, trust: TrustFunction | false): string {
  if (!trust || typeof forwardedFor !== 'string') return peer;
  // As the `forwarded` package parses it: entries trimmed of spaces and tabs, empty ones skipped.
  const hops = [peer, ...forwardedFor.split(',').map((hop) => hop.replace(/^[ \t]+|[ \t]+$/g, '')).filter((hop) => hop !== '').reverse()];
  for (let i = 0; i < hops.length - 1; i++) {
    if (!trust(hops[i] ?? '', i)) return hops[i] ?? peer;
  }
  return hops[hops.length - 1] ?? peer;
}
