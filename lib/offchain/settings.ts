import { type Config, ConfigError } from "../config.js";

/**
 * The publishing settings (docs/offchain.md, "Settings"), read from the environment:
 * - PUBLISH_MODE `open` (anyone may publish a verified record), `allowlist` (only the attesters in
 *   PUBLISH_ATTESTERS) or `off` (POST answers 403). Default: `open` locally, where the service is a developer's own;
 *   `off` on Vercel unless set, so a public deployment never takes writes its operator did not choose to take.
 * - PUBLISH_ATTESTERS: comma-separated addresses, for `allowlist`.
 * - PUBLISH_PER_MINUTE_CLIENT (default 30) and PUBLISH_PER_MINUTE_ATTESTER (default 60): publications per 60-second
 *   sliding window, per client IP and per attester, on top of the public rate limit; 0 turns one off.
 * - PUBLISH_MAX_BYTES (default 65536): the largest body accepted (413 beyond).
 * - OFFCHAIN_MAX_CLOCK_SKEW_SECONDS (default 300): how far in the future an attestation's `time` may lie.
 */
export type PublishSettings = {
  mode: "open" | "allowlist" | "off";
  attesters: ReadonlySet<string>;
  perMinuteClient: number;
  perMinuteAttester: number;
  maxBytes: number;
  maxSkewSeconds: number;
};

const cache = new WeakMap<Config, PublishSettings>();

function whole(env: Config["env"], key: string, fallback: number, max: number): number {
  const raw = env[key]?.trim();
  if (!raw) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) > max)
    throw new ConfigError(`${key} must be a whole number from 0 to ${max}`, [key]);
  return Number(raw);
}

export function publishSettings(config: Config): PublishSettings {
  const cached = cache.get(config);
  if (cached) return cached;
  const env = config.env;
  const rawMode = env.PUBLISH_MODE?.trim().toLowerCase();
  const mode = rawMode || (config.onVercel ? "off" : "open");
  if (mode !== "open" && mode !== "allowlist" && mode !== "off")
    throw new ConfigError("PUBLISH_MODE must be open, allowlist or off", ["PUBLISH_MODE"]);
  const attesters = (env.PUBLISH_ATTESTERS ?? "")
    .split(",")
    .map((a) => a.trim().toLowerCase())
    .filter(Boolean);
  const invalid = attesters.find((a) => !/^0x[0-9a-f]{40}$/.test(a));
  if (invalid)
    throw new ConfigError(`PUBLISH_ATTESTERS: ${invalid} is not an address`, ["PUBLISH_ATTESTERS"]);
  if (mode === "allowlist" && attesters.length === 0)
    throw new ConfigError("PUBLISH_MODE=allowlist needs PUBLISH_ATTESTERS", ["PUBLISH_ATTESTERS"]);
  const settings: PublishSettings = {
    mode,
    attesters: new Set(attesters),
    perMinuteClient: whole(env, "PUBLISH_PER_MINUTE_CLIENT", 30, 1_000_000),
    perMinuteAttester: whole(env, "PUBLISH_PER_MINUTE_ATTESTER", 60, 1_000_000),
    maxBytes: whole(env, "PUBLISH_MAX_BYTES", 64 * 1024, 1024 * 1024),
    maxSkewSeconds: whole(env, "OFFCHAIN_MAX_CLOCK_SKEW_SECONDS", 300, 86_400),
  };
  cache.set(config, settings);
  return settings;
}
