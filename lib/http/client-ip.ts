import { isIP } from "node:net";

/**
 * Who is calling, as far as the platform can vouch for it.
 *
 * The rule: the client IP comes from `x-real-ip`, which the platform (Vercel) sets from the TCP connection and
 * overwrites whatever a client sent; on Vercel, `x-vercel-forwarded-for` (also platform-set) is the fallback.
 * The local dev server (lib/local/http-server.ts) overwrites `x-real-ip` with the socket's remote address on every
 * request, as the platform does, so the same rule holds everywhere.
 *
 * `X-Forwarded-For` is never read: anyone can send one, and a limiter keyed on it is a limiter anyone can reset.
 * A request without a trusted header (a direct in-process call, e.g. a test) has no known IP.
 */
export function trustedClientIp(request: Request, options: { onVercel: boolean }): string | undefined {
  const real = normaliseIp(request.headers.get("x-real-ip"));
  if (real) return real;
  if (options.onVercel) {
    // Platform-set list; its first entry is the client the platform saw.
    const forwarded = request.headers.get("x-vercel-forwarded-for")?.split(",")[0];
    return normaliseIp(forwarded);
  }
  return undefined;
}

/** A syntactically valid IP with IPv4-mapped IPv6 (`::ffff:1.2.3.4`, what node reports on dual-stack) unwrapped. */
function normaliseIp(value: string | null | undefined): string | undefined {
  const ip = value?.trim();
  if (!ip) return undefined;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (mapped && isIP(mapped[1]!) === 4) return mapped[1]!;
  return isIP(ip) ? ip.toLowerCase() : undefined;
}

/** 127.0.0.0/8 and ::1: a caller on this machine. */
export function isLoopback(ip: string | undefined): boolean {
  if (!ip) return false;
  if (isIP(ip) === 4) return ip.startsWith("127.");
  return expandIpv6(ip)?.every((group, i) => group === (i === 7 ? 1 : 0)) ?? false;
}

/**
 * The rate-limit key for an address. IPv4: the address. IPv6: its /64 prefix, because one subscriber usually holds
 * a whole /64 and could otherwise rotate through 2^64 addresses to escape the limit.
 */
export function rateLimitKeyFor(ip: string | undefined): string {
  if (!ip) return "unknown";
  if (isIP(ip) === 4) return ip;
  const groups = expandIpv6(ip);
  if (!groups) return "unknown";
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(":")}::/64`;
}

/** The eight 16-bit groups of an IPv6 address (with an embedded dotted IPv4 tail handled), or undefined. */
function expandIpv6(ip: string): number[] | undefined {
  if (isIP(ip) !== 6) return undefined;
  let text = ip.split("%")[0]!;
  const v4 = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4[1]!.split(".").map(Number) as [number, number, number, number];
    text = `${text.slice(0, -v4[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split("::") as [string, string | undefined];
  const parse = (part: string) => (part ? part.split(":").map((g) => Number.parseInt(g, 16)) : []);
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const fill = tail === undefined ? 0 : 8 - left.length - right.length;
  const groups = [...left, ...new Array<number>(fill).fill(0), ...right];
  return groups.length === 8 ? groups : undefined;
}
