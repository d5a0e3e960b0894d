import dns, { type LookupAddress } from "node:dns";
import { BlockList, isIP, type LookupFunction } from "node:net";
import { Agent, buildConnector } from "undici";

/**
 * IPv4 ranges that are not the public internet (RFC 6890's special-purpose
 * registry): this network, private (RFC 1918), shared/CGNAT (RFC 6598),
 * loopback, link-local, IETF protocol assignments, documentation, 6to4
 * relay, benchmarking, multicast, reserved and broadcast.
 */
const V4_NOT_PUBLIC: ReadonlyArray<readonly [string, number]> = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
];

/**
 * IPv6 ranges inside global unicast (2000::/3) that are not public or that
 * carry an IPv4 address of any kind: IETF protocol assignments and Teredo
 * (2001::/23), documentation, 6to4.
 */
const V6_NOT_PUBLIC: ReadonlyArray<readonly [string, number]> = [
  ["2001::", 23],
  ["2001:db8::", 32],
  ["2002::", 16],
  ["3fff::", 20],
];

const notPublic = new BlockList();
for (const [network, prefix] of V4_NOT_PUBLIC) notPublic.addSubnet(network, prefix, "ipv4");
for (const [network, prefix] of V6_NOT_PUBLIC) notPublic.addSubnet(network, prefix, "ipv6");
const globalUnicast = new BlockList();
globalUnicast.addSubnet("2000::", 3, "ipv6");

/**
 * Whether an IP address is on the public internet. IPv6 must be global
 * unicast (2000::/3), which leaves out unspecified, loopback, IPv4-mapped
 * and -compatible forms, NAT64, unique-local (fc00::/7), link-local and
 * multicast; IPv4 must be outside every special-purpose range (RFC 6890:
 * private, CGNAT, loopback, link-local, multicast, reserved …).
 *
 * @param address - an IPv4 or IPv6 address literal (no brackets); anything else is not public
 */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !notPublic.check(address, "ipv4");
  if (family === 6)
    return globalUnicast.check(address, "ipv6") && !notPublic.check(address, "ipv6");
  return false;
}

/** A connection refused because its address is not public (never retried, named in the error). */
export class NotPublicAddressError extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(`${host} resolves to ${address}, which is not a public address`);
    this.name = "NotPublicAddressError";
  }
}

/**
 * `dns.lookup` that answers only public addresses: every address of the
 * name must be public (one private answer refuses the name), so the check
 * is made on what the socket then connects to, and DNS rebinding cannot
 * get past it.
 */
export const publicLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error !== null) {
      callback(error, "", 0);
      return;
    }
    const refused = addresses.find((entry) => !isPublicAddress(entry.address));
    if (refused !== undefined) {
      callback(new NotPublicAddressError(hostname, refused.address), "", 0);
      return;
    }
    if (options.all === true) {
      (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
      return;
    }
    const [first] = addresses;
    if (first === undefined) callback(new Error(`${hostname} has no address`), "", 0);
    else callback(null, first.address, first.family);
  });
};

/** How {@link createPublicAddressAgent} connects. */
export interface PublicAddressAgentOptions {
  /** `true`: any address (a private network's documents); `false`: public addresses only. */
  allowPrivate: boolean;
  /** Certificate authorities trusted instead of Node's bundle (PEM): the tests' own CA. */
  ca?: string;
  /** Longest time to connect (TCP and TLS) in milliseconds. */
  connectTimeoutMs: number;
}

/**
 * An undici `Agent` for fetching documents named by people outside the
 * service (SSRF guard): unless `allowPrivate`, its connections go only to
 * public addresses ({@link isPublicAddress}), decided on the resolved
 * address ({@link publicLookup}) or on an IP-literal host before
 * connecting. A refused connection fails with {@link NotPublicAddressError}.
 */
export function createPublicAddressAgent(options: PublicAddressAgentOptions): Agent {
  const connectOptions = {
    timeout: options.connectTimeoutMs,
    ...(options.ca === undefined ? {} : { ca: options.ca }),
  };
  if (options.allowPrivate) return new Agent({ connect: connectOptions });
  const connector = buildConnector({ ...connectOptions, lookup: publicLookup });
  return new Agent({
    connect: (connection, callback) => {
      const host = connection.hostname.replace(/^\[(.*)\]$/u, "$1");
      if (isIP(host) !== 0 && !isPublicAddress(host)) {
        callback(new NotPublicAddressError(host, host), null);
        return;
      }
      connector(connection, callback);
    },
  });
}
