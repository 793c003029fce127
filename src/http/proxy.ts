import { BlockList, isIP } from 'node:net';

/**
 * Which X-Forwarded-For hops to believe (TRUST_PROXY). `false`: none, the client is the peer
 * of the TCP connection, whatever the header says. A number N: the nearest N hops are our
 * proxies (safe only when clients cannot reach the server except through them). A list of
 * addresses and CIDR ranges: a hop is believed when the address that handed it over is one
 * of them.
 */
export type TrustProxy = false | number | readonly string[];

/** The decision proxy-addr (inside Fastify) asks of each hop; 0 is the TCP peer. */
export type TrustFunction = (address: string, hop: number) => boolean;

/** Names proxy-addr understands, as the ranges they stand for. */
const NAMED_RANGES: Readonly<Record<string, readonly string[]>> = {
  loopback: ['127.0.0.0/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/** One TRUST_PROXY list entry as CIDR ranges, or undefined when it is not an address, a range or a known name. */
export function trustedRanges(entry: string): string[] | undefined {
  const named = NAMED_RANGES[entry];
  if (named) return [...named];
  const [address = '', prefix, extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return undefined;
  const bits = family === 4 ? 32 : 128;
  if (prefix === undefined) return [`${address}/${bits}`];
  if (!/^[0-9]{1,3}$/.test(prefix) || Number(prefix) > bits) return undefined;
  return [`${address}/${prefix}`];
}

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
