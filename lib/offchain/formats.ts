import { inflateSync } from "node:zlib";
import * as v from "valibot";
import { type Address, getAddress, type Hex, zeroAddress, zeroHash } from "viem";
import { ApiError } from "../http/errors.js";

/**
 * The shapes of a signed EAS off-chain attestation this service accepts, read into one (SignedOffchain). They are
 * the EAS SDK's own (read from its source, `offchain/offchain.ts` and `offchain/offchain-utils.ts`):
 * - what `Offchain.signOffchainAttestation` returns: `{ version, uid, domain, primaryType, types, message,
 *   signature: { v, r, s } }`, offchain versions 1 and 2 (2 adds a `salt` to the message), as JSON, its big integers
 *   (chainId, time, expirationTime) as decimal strings or numbers; older SDKs put v, r and s at the top level;
 * - the shareable package `{ sig, signer }` around it;
 * - the compact package behind easscan's off-chain links (`zipAndEncodeToBase64`, `createOffchainURL`): the package
 *   as a JSON array, deflated (zlib) and base64-encoded; sent as a JSON string, as `{ "attestation": "…" }`, or as
 *   the whole link (its `#attestation=` fragment, URL-encoded).
 *
 * The message's `types` and `primaryType` as sent are not trusted: the signature is checked against the EAS types of
 * the version (lib/offchain/verify.ts), so a package that names other types simply fails to verify.
 */
export type SignedOffchain = {
  version: 1 | 2;
  uid: Hex;
  domain: { name: string; version: string; chainId: bigint; verifyingContract: Address };
  message: {
    schema: Hex;
    recipient: Address;
    time: bigint;
    expirationTime: bigint;
    revocable: boolean;
    refUID: Hex;
    data: Hex;
    salt?: Hex;
  };
  signature: { v: number; r: Hex; s: Hex };
  /** the signer the package names; undefined for a bare signed attestation (the signature names its attester) */
  signer?: Address;
};

const bad = (parameter: string, message: string) =>
  new ApiError(400, "InvalidRequestBody", `${parameter}: ${message}`, { parameter });

const hexOf = (bytes: number | undefined) =>
  v.pipe(
    v.string(),
    v.regex(
      bytes === undefined ? /^0x([0-9a-fA-F]{2})*$/ : new RegExp(`^0x[0-9a-fA-F]{${bytes * 2}}$`),
      bytes === undefined ? "must be 0x and whole bytes of hex" : `must be 0x and ${bytes * 2} hex digits`,
    ),
    v.transform((s) => s.toLowerCase() as Hex),
  );
const bytes32 = hexOf(32);
const address = v.pipe(
  v.string(),
  v.regex(/^0x[0-9a-fA-F]{40}$/, "must be an address (0x and 40 hex digits)"),
  v.transform((s) => getAddress(s)),
);
/** A uint as JSON writes the SDK's bigints: a decimal string, or a safe whole number. */
const uint = (bits: number) =>
  v.pipe(
    v.union([
      v.pipe(v.string(), v.regex(/^\d{1,78}$/, "must be a whole number (decimal)")),
      v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(Number.MAX_SAFE_INTEGER)),
    ]),
    v.transform((x) => BigInt(x)),
    v.check((x) => x < 2n ** BigInt(bits), `must fit in uint${bits}`),
  );
const sigV = v.pipe(
  v.union([v.pipe(v.string(), v.regex(/^\d{1,3}$/)), v.pipe(v.number(), v.integer())]),
  v.transform(Number),
  v.check((x) => x === 0 || x === 1 || x === 27 || x === 28, "must be 27 or 28 (or 0 or 1)"),
);

const Signature = v.object({ v: sigV, r: bytes32, s: bytes32 });
/**
 * A domain's name or version: text without control characters. EAS's are short printable strings ("EAS
 * Attestation", "1.3.0"), and a NUL could not be stored (PostgreSQL's text refuses it).
 */
const domainText = (max: number) =>
  v.pipe(
    v.string(),
    v.maxLength(max),
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it refuses
    v.regex(/^[^\u0000-\u001f\u007f]*$/, "must hold no control characters"),
  );
const Domain = v.object({
  name: domainText(100),
  version: domainText(40),
  chainId: uint(256),
  verifyingContract: address,
});
const Message = v.object({
  version: v.optional(v.union([v.number(), v.string()])),
  schema: bytes32,
  recipient: address,
  time: uint(64),
  expirationTime: uint(64),
  revocable: v.boolean(),
  refUID: bytes32,
  data: hexOf(undefined),
  salt: v.optional(bytes32),
});
/** The object signOffchainAttestation returns (v, r and s nested, or at the top level as older SDKs wrote them). */
const Signed = v.object({
  version: v.optional(v.union([v.number(), v.string()])),
  uid: bytes32,
  domain: Domain,
  message: Message,
  signature: v.optional(Signature),
  v: v.optional(sigV),
  r: v.optional(bytes32),
  s: v.optional(bytes32),
});
const Package = v.object({ sig: v.unknown(), signer: address });

/** The compact array of zipAndEncodeToBase64 (compactOffchainAttestationPackage), by position. */
const Compact = v.tuple([
  v.string(), // 0 domain version
  v.union([v.number(), v.string()]), // 1 chain id
  v.string(), // 2 verifying contract
  v.string(), // 3 r
  v.string(), // 4 s
  v.union([v.number(), v.string()]), // 5 v
  v.string(), // 6 signer
  v.string(), // 7 uid
  v.string(), // 8 schema
  v.string(), // 9 recipient, "0" for none
  v.union([v.number(), v.string()]), // 10 time
  v.union([v.number(), v.string()]), // 11 expiration time
  v.string(), // 12 refUID, "0" for none
  v.boolean(), // 13 revocable
  v.string(), // 14 data
  v.unknown(), // 15 nonce (0)
  v.optional(v.union([v.number(), v.null()])), // 16 offchain version (absent: legacy)
  v.optional(v.union([v.string(), v.null()])), // 17 salt
]);

function issueAt(prefix: string, issues: readonly v.BaseIssue<unknown>[]): ApiError {
  const issue = issues[0]!;
  const path = issue.path?.map((p) => String(p.key)).join(".");
  return bad(path ? `${prefix}.${path}` : prefix, issue.message);
}

function versionOf(raw: unknown, where: string): 1 | 2 {
  const n = Number(raw);
  if (n === 1 || n === 2) return n;
  throw new ApiError(
    400,
    "UnsupportedOffchainVersion",
    `${where}: offchain attestation version ${raw === undefined ? "0 (legacy)" : String(raw)} is not accepted; versions 1 and 2 are (the EAS SDK signs version 2 by default)`,
    { parameter: where },
  );
}

/** The bare signed attestation (signOffchainAttestation's result). */
function readSigned(raw: unknown, prefix: string, signer?: Address): SignedOffchain {
  const r = v.safeParse(Signed, raw);
  if (!r.success) throw issueAt(prefix, r.issues);
  const s = r.output;
  const version = versionOf(s.version ?? s.message.version, `${prefix}.version`);
  const signature = s.signature ?? (s.v !== undefined && s.r && s.s ? { v: s.v, r: s.r, s: s.s } : undefined);
  if (!signature) throw bad(`${prefix}.signature`, "missing: expected { v, r, s }");
  if (version === 2 && !s.message.salt)
    throw bad(`${prefix}.message.salt`, "a version 2 attestation has a salt");
  const { version: _, salt, ...message } = s.message;
  return {
    version,
    uid: s.uid,
    domain: s.domain,
    message: version === 2 ? { ...message, salt } : message,
    signature,
    ...(signer ? { signer } : {}),
  };
}

/** The base64 of an easscan link, or the link itself (its #attestation= fragment). */
function readZipped(text: string, prefix: string): SignedOffchain {
  const at = text.indexOf("attestation=");
  const b64 =
    at >= 0 ? decodeURIComponent(text.slice(at + "attestation=".length).split("&")[0]!) : text.trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(b64)) throw bad(prefix, "not a base64 off-chain attestation package");
  let compact: unknown;
  try {
    // A bound on the inflated size: the compact package of a 64 kB attestation is far below it.
    const json = inflateSync(Buffer.from(b64, "base64"), { maxOutputLength: 256 * 1024 }).toString("utf8");
    compact = JSON.parse(json);
  } catch {
    throw bad(prefix, "not a zipped (zlib, base64) off-chain attestation package");
  }
  const c = v.safeParse(Compact, compact);
  if (!c.success) throw issueAt(prefix, c.issues);
  const a = c.output;
  const version = versionOf(a[16] ?? undefined, `${prefix}[16]`);
  return readSigned(
    {
      version,
      uid: a[7],
      domain: { name: "EAS Attestation", version: a[0], chainId: a[1], verifyingContract: a[2] },
      message: {
        version,
        schema: a[8],
        recipient: a[9] === "0" ? zeroAddress : a[9],
        time: a[10],
        expirationTime: a[11],
        refUID: a[12] === "0" ? zeroHash : a[12],
        revocable: a[13],
        data: a[14],
        ...(a[17] ? { salt: a[17] } : {}),
      },
      signature: { r: a[3], s: a[4], v: a[5] },
    },
    prefix,
    readAddress(a[6], `${prefix}[6]`),
  );
}

function readAddress(raw: string, parameter: string): Address {
  const r = v.safeParse(address, raw);
  if (!r.success) throw bad(parameter, r.issues[0].message);
  return r.output;
}

/**
 * The Astral SDK's `OffchainLocationAttestation` (its `src/core/types.ts`, made by `OffchainSigner`): the location
 * fields, `uid`, `signature` as a JSON string of { v, r, s }, `signer` and an SDK `version` such as
 * "astral-sdk-v0.1.0". It cannot be verified, and is answered with a code of its own that says why: the SDK signs
 * with the EAS SDK's offchain version 2, whose message carries a random 32-byte salt that the SDK then drops, and it
 * does not keep the chain id or the schema uid either. Without the salt neither the uid nor the signature can be
 * recomputed, so no field of it can be trusted. The object the EAS SDK returned to it is publishable as it is.
 */
function refuseAstral(o: Record<string, unknown>): void {
  const astral =
    typeof o.signature === "string" && "location" in o && "srs" in o && !("message" in o) && !("domain" in o);
  if (!astral) return;
  throw new ApiError(
    422,
    "UnverifiableAstralAttestation",
    `body: an Astral SDK OffchainLocationAttestation cannot be verified: it does not carry the signed message's salt, chain id or schema uid. The EAS SDK signed it as offchain version 2, whose message holds a random salt that the Astral SDK drops, so neither its uid nor its signature can be recomputed. Publish what the EAS SDK's signOffchainAttestation returned (or its { sig, signer } package) instead.`,
    { parameter: "body" },
  );
}

/**
 * Reads a publication body (parsed JSON, or the text of a text/plain body) in any of the accepted shapes; a 400
 * naming the field otherwise.
 */
export function readPublication(body: unknown): SignedOffchain {
  if (typeof body === "string") return readZipped(body, "body");
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw bad(
      "body",
      "expected a signed off-chain attestation, its { sig, signer } package, or its zipped form",
    );
  const o = body as Record<string, unknown>;
  if ("sig" in o) {
    const p = v.safeParse(Package, o);
    if (!p.success) throw issueAt("body", p.issues);
    return readSigned(p.output.sig, "body.sig", p.output.signer);
  }
  if (typeof o.attestation === "string") return readZipped(o.attestation, "body.attestation");
  if (typeof o.url === "string") return readZipped(o.url, "body.url");
  refuseAstral(o);
  return readSigned(o, "body");
}

/** The signed original as the SDK's shareable package, JSON with big integers as decimal strings. */
export function packageJson(s: SignedOffchain, signer: Address): string {
  const message = {
    version: s.version,
    schema: s.message.schema,
    recipient: s.message.recipient,
    time: s.message.time.toString(),
    expirationTime: s.message.expirationTime.toString(),
    revocable: s.message.revocable,
    refUID: s.message.refUID,
    data: s.message.data,
    ...(s.message.salt ? { salt: s.message.salt } : {}),
  };
  return JSON.stringify({
    sig: {
      version: s.version,
      uid: s.uid,
      domain: { ...s.domain, chainId: s.domain.chainId.toString() },
      primaryType: "Attest",
      types: { Attest: attestTypes(s.version) },
      message,
      signature: s.signature,
    },
    signer,
  });
}

/** The EIP-712 types EAS signs an off-chain attestation of this version with (OFFCHAIN_ATTESTATION_TYPES). */
export function attestTypes(version: 1 | 2) {
  return [
    { name: "version", type: "uint16" },
    { name: "schema", type: "bytes32" },
    { name: "recipient", type: "address" },
    { name: "time", type: "uint64" },
    { name: "expirationTime", type: "uint64" },
    { name: "revocable", type: "bool" },
    { name: "refUID", type: "bytes32" },
    { name: "data", type: "bytes" },
    ...(version === 2 ? [{ name: "salt", type: "bytes32" }] : []),
  ] as const;
}
