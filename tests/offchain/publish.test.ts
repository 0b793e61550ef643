import {
  createOffchainURL,
  Offchain,
  OffchainAttestationVersion,
  type SignedOffchainAttestation,
  zipAndEncodeToBase64,
} from "@ethereum-attestation-service/eas-sdk";
import { sql } from "drizzle-orm";
import { Wallet } from "ethers";
import { type Hex, keccak256, toHex, zeroHash } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../db/client.js";
import { loadConfig, setConfig } from "../../lib/config.js";
import type { Devnet } from "../../lib/devnet/index.js";
import { encodeLocationProof } from "../../lib/devnet/location-data.js";
import { DEVNET_SCHEMA_UIDS, DEVNET_SCHEMAS, encodeRecord } from "../../lib/devnet/schemas.js";
import { readPublication } from "../../lib/offchain/formats.js";
import { offchainUid } from "../../lib/offchain/verify.js";
import { AUTH, mine } from "../helpers/anvil.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { endAfterAll } from "../helpers/fixtures.js";
import {
  jsonOf,
  nowSeconds,
  type OffchainParams,
  offchainDevnet,
  offchainOf,
  recordData,
  OFFCHAIN_SCHEMAS as SCHEMAS,
  publisher as signer,
  signOffchain,
} from "../helpers/offchain.js";

/**
 * Off-chain location records, published and read back: the EAS SDK signs offchain versions 1 and 2 of the v0.1
 * schema and of the devnet's Location Protocol schemas (discovered by the sync on the devnet), in each of the shapes
 * the SDK hands around; every tampered input is refused with its own code; fifty concurrent publications of one
 * attestation leave one record.
 */

// anvil's second default key (a public test key): a signer other than the publisher.
const OTHER_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
const other = new Wallet(OTHER_KEY);
const PATH = "/api/v0/location-records";
const _CRS84 = "http://www.opengis.net/def/crs/OGC/1.3/CRS84";

let devnet: Devnet;
let app: TestApp;
let env: Record<string, string>;

beforeAll(async () => {
  devnet = await offchainDevnet([DEVNET_SCHEMAS.review]);
  await mine(devnet.rpcUrl, 3);
  // The publication limits are off but where a test sets them ("publishing modes and limits").
  env = {
    CRON_SECRET: "test-secret",
    CHAINS: "devnet",
    RPC_URL_DEVNET: devnet.rpcUrl,
    PUBLISH_PER_MINUTE_CLIENT: "0",
    PUBLISH_PER_MINUTE_ATTESTER: "0",
  };
  app = await createTestApp(env);
  // The sync discovers the devnet's location schemas (what makes them known to publishing).
  const synced = await app.get("/api/sync", { method: "POST", headers: AUTH });
  expect(synced.status).toBe(200);
}, 180_000);
endAfterAll(() => [app, devnet]);

const offchainFor = (version: OffchainAttestationVersion, chainId?: bigint, address?: string) =>
  offchainOf(devnet, version, chainId, address);

const sign = (
  p: OffchainParams,
  version = OffchainAttestationVersion.Version2,
  wallet: Wallet = signer,
  offchain = offchainFor(version),
): Promise<SignedOffchainAttestation> => signOffchain(offchain, p, wallet);

const post = (body: string, contentType = "application/json") =>
  app.get(PATH, { method: "POST", headers: { "content-type": contentType }, body });

/** The shapes a publication may take, each from the same signed attestation. */
const SHAPES = {
  signed: (s: SignedOffchainAttestation) => [jsonOf(s), "application/json"],
  package: (s: SignedOffchainAttestation) => [jsonOf({ sig: s, signer: signer.address }), "application/json"],
  zipped: (s: SignedOffchainAttestation) => [
    JSON.stringify(zipAndEncodeToBase64({ sig: s, signer: signer.address })),
    "application/json",
  ],
  link: (s: SignedOffchainAttestation) => [
    `https://sepolia.easscan.org${createOffchainURL({ sig: s, signer: signer.address })}`,
    "text/plain",
  ],
} as const;

describe("publishing the EAS SDK's off-chain attestations", () => {
  const cases = Object.keys(SCHEMAS).flatMap((schema, i) =>
    [OffchainAttestationVersion.Version1, OffchainAttestationVersion.Version2].map((version, j) => ({
      schema: schema as keyof typeof SCHEMAS,
      version,
      shape: Object.keys(SHAPES)[(i * 2 + j) % 4] as keyof typeof SHAPES,
      lon: 10 + i,
      lat: 40 + j,
    })),
  );

  it.each(cases)(
    "$schema, offchain version $version, as $shape: 201, read back by uid, its signed original verifies",
    async (c) => {
      const signed = await sign(
        { schema: SCHEMAS[c.schema], data: recordData(c.schema, c.lon, c.lat) },
        c.version,
      );
      const [body, type] = SHAPES[c.shape](signed);
      const res = await post(body!, type);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toMatchObject({
        uid: signed.uid.toLowerCase(),
        source: "offchain",
        signer: signer.address.toLowerCase(),
        prover: signer.address.toLowerCase(),
        chain: "devnet",
        schema_uid: SCHEMAS[c.schema].toLowerCase(),
        offchain_version: c.version,
        location_type: "geojson-point",
        longitude: c.lon,
        latitude: c.lat,
        block_number: null,
        tx_hash: null,
        revoked: false,
      });
      expect(Date.parse(res.body.published_at)).toBeGreaterThan(Date.now() - 60_000);

      const again = await post(body!, type);
      expect(again.status).toBe(200);
      expect(again.body.uid).toBe(res.body.uid);

      for (const path of [`${PATH}/${signed.uid}`, `/api/v0/location-proofs/${signed.uid}`]) {
        const read = await app.get(path);
        expect(read.status).toBe(200);
        expect(read.body).toEqual(res.body);
      }

      // The signed original: the SDK itself verifies it, and it is the attestation that was signed.
      const original = await app.get(`${PATH}/${signed.uid}/signed`);
      expect(original.status).toBe(200);
      expect(original.body.signer).toBe(signer.address);
      expect(original.body.sig.uid).toBe(signed.uid.toLowerCase());
      const verifier = offchainFor(c.version);
      expect(verifier.verifyOffchainAttestationSignature(signer.address, original.body.sig)).toBe(true);
    },
  );

  it("computes the uid the EAS SDK computes, for versions 1 and 2", async () => {
    for (const version of [OffchainAttestationVersion.Version1, OffchainAttestationVersion.Version2]) {
      const signed = await sign({ schema: SCHEMAS.v01, data: recordData("v01", 1, 2) }, version);
      const m = signed.message;
      const sdk = Offchain.getOffchainUID(
        version,
        m.schema,
        m.recipient,
        m.time,
        m.expirationTime,
        m.revocable,
        m.refUID,
        m.data,
        m.salt,
      );
      expect(offchainUid(readPublication(JSON.parse(jsonOf(signed))))).toBe(sdk.toLowerCase());
      expect(sdk).toBe(signed.uid);
    }
  });

  it("publications are counted in the stats and the sync status (the on-chain counts unchanged)", async () => {
    const before = await app.get("/api/v0/location-proofs/stats");
    const status = await app.get("/api/sync/status", { headers: AUTH });
    expect(status.status).toBe(200);
    expect(status.body.publications).toEqual(before.body.publications);
    const s = await sign({ schema: SCHEMAS.v01, data: recordData("v01", 7, 7) });
    expect((await post(jsonOf(s))).status).toBe(201);
    const after = await app.get("/api/v0/location-proofs/stats");
    expect(after.body.publications).toEqual({
      total: before.body.publications.total + 1,
      last_24h: before.body.publications.last_24h + 1,
    });
    // Off-chain records are not on-chain proofs: the spec's counts keep their meaning.
    expect(after.body.total).toBe(before.body.total);
  });

  it("fifty concurrent publications of one attestation leave exactly one record", async () => {
    const signed = await sign({ schema: SCHEMAS.appendix, data: recordData("appendix", 5, 5) });
    const body = jsonOf({ sig: signed, signer: signer.address });
    const answers = await Promise.all(Array.from({ length: 50 }, () => post(body)));
    const statuses = answers.map((a) => a.status).sort();
    const seen = JSON.stringify(answers.filter((a) => a.status !== 200).map((a) => a.body));
    expect(
      statuses.filter((s) => s === 201),
      seen,
    ).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(49);
    const rows = await queryRows<{ n: number }>(
      app.db,
      sql`select count(*)::int as n from offchain_records where uid = ${signed.uid.toLowerCase()}`,
    );
    expect(rows[0]!.n).toBe(1);
  });

  it("a burst of publications goes in together, each answered for itself (lib/offchain/store.ts, group commit)", async () => {
    // Twelve distinct attestations, one of them twice, and the message of another signed by a second key: all sent
    // at once, so most wait for one insert and go in the next one together.
    const mine = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        sign({ schema: SCHEMAS.appendix, data: recordData("appendix", 60 + i, 7) }),
      ),
    );
    const contested = mine[3]!;
    const theirs = await offchainFor(OffchainAttestationVersion.Version2).signOffchainAttestation(
      { ...contested.message, salt: contested.message.salt } as never,
      other,
    );
    expect(theirs.uid).toBe(contested.uid);
    const bodies = [...mine.map((s) => jsonOf(s)), jsonOf(mine[5]!), jsonOf(theirs)];
    const answers = await Promise.all(bodies.map((b) => post(b)));
    const statuses = answers.map((a) => a.status);
    for (const [i, s] of mine.entries()) {
      if (i === 3 || i === 5) continue;
      expect(statuses[i], `${i}: ${JSON.stringify(answers[i]!.body)}`).toBe(201);
      expect(answers[i]!.body.uid).toBe(s.uid.toLowerCase());
    }
    // The duplicate: one of the two created it, the other found it held.
    expect([statuses[5], statuses[12]].sort()).toEqual([200, 201]);
    expect(answers[12]!.body.uid).toBe(mine[5]!.uid.toLowerCase());
    // The contested uid: whichever signer's insert came first holds it, the other is a conflict.
    expect([statuses[3], statuses[13]].sort()).toEqual([201, 409]);
    const winner = statuses[3] === 201 ? signer.address : other.address;
    const rows = await queryRows<{ uid: string; prover: string }>(
      app.db,
      sql`select uid, prover from offchain_records where uid in ${mine.map((s) => s.uid.toLowerCase())}`,
    );
    expect(rows).toHaveLength(12);
    expect(rows.find((r) => r.uid === contested.uid.toLowerCase())!.prover).toBe(winner.toLowerCase());
  });
});

describe("tampered and unacceptable publications, each refused with its own code", () => {
  const good = () => sign({ schema: SCHEMAS.appendix, data: recordData("appendix", 20, 20) });
  const refused = async (body: unknown, status: number, code: string) => {
    const res = await post(typeof body === "string" ? body : jsonOf(body));
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body.code).toBe(code);
    return res;
  };
  const stored = async () =>
    (await queryRows<{ n: number }>(app.db, sql`select count(*)::int as n from offchain_records`))[0]!.n;

  it("a changed byte of data: the signature no longer recovers the signer", async () => {
    const s = await good();
    const data = s.message.data;
    const flipped = `${data.slice(0, -2)}${data.endsWith("00") ? "01" : "00"}`;
    const before = await stored();
    await refused(
      { sig: { ...s, message: { ...s.message, data: flipped } }, signer: signer.address },
      422,
      "InvalidSignature",
    );
    expect(await stored()).toBe(before);
  });

  it("the signature of another key", async () => {
    const mine = await good();
    const theirs = await sign(
      { ...mine.message, schema: mine.message.schema as Hex, data: mine.message.data as Hex },
      2,
      other,
    );
    await refused(
      { sig: { ...mine, signature: theirs.signature }, signer: signer.address },
      422,
      "InvalidSignature",
    );
  });

  it("a wrong uid", async () => {
    const s = await good();
    await refused({ ...s, uid: keccak256(toHex("another")) }, 422, "UidMismatch");
  });

  it("another chain's domain (chain 1, not indexed here)", async () => {
    const s = await sign(
      { schema: SCHEMAS.appendix, data: recordData("appendix", 1, 1) },
      2,
      signer,
      offchainFor(OffchainAttestationVersion.Version2, 1n),
    );
    await refused(s, 422, "UnknownNetwork");
    // And another verifying contract on the devnet's chain.
    const t = await sign(
      { schema: SCHEMAS.appendix, data: recordData("appendix", 1, 1) },
      2,
      signer,
      offchainFor(
        OffchainAttestationVersion.Version2,
        BigInt(devnet.chainId),
        "0x000000000000000000000000000000000000bEEF",
      ),
    );
    await refused(t, 422, "UnknownNetwork");
  });

  it("a domain whose version or name holds a control character: a 400 (a NUL could not even be stored)", async () => {
    const before = await stored();
    for (const domain of [{ version: "1.3.0\u0000" }, { version: "1.3.0\n" }]) {
      const offchain = new Offchain(
        { address: devnet.eas, chainId: BigInt(devnet.chainId), ...domain },
        OffchainAttestationVersion.Version2,
        undefined as never,
      );
      const s = await signOffchain(
        offchain,
        { schema: SCHEMAS.appendix, data: recordData("appendix", 2, 2) },
        signer,
      );
      const res = await refused(s, 400, "InvalidRequestBody");
      expect(res.body.parameter).toBe("body.domain.version");
    }
    expect(await stored()).toBe(before);
  });

  it("an unknown schema: one not registered, and one registered that is not about locations", async () => {
    await refused(
      await sign({ schema: keccak256(toHex("no such schema")), data: "0x" }),
      422,
      "UnknownSchema",
    );
    const review = encodeRecord(DEVNET_SCHEMAS.review, { location: "here", comment: "ok", rating: 5n });
    await refused(await sign({ schema: DEVNET_SCHEMA_UIDS.review, data: review }), 422, "UnknownSchema");
  });

  it("a time in the future beyond the skew (and one within it is taken)", async () => {
    const data = recordData("appendix", 30, 30);
    await refused(
      await sign({ schema: SCHEMAS.appendix, data, time: nowSeconds() + 3600n }),
      422,
      "AttestationInFuture",
    );
    const within = await post(
      jsonOf(await sign({ schema: SCHEMAS.appendix, data, time: nowSeconds() + 60n })),
    );
    expect(within.status).toBe(201);
  });

  it("an expired attestation", async () => {
    const s = await sign({
      schema: SCHEMAS.appendix,
      data: recordData("appendix", 31, 31),
      expirationTime: nowSeconds() - 10n,
    });
    await refused(s, 422, "AttestationExpired");
  });

  it("data that does not decode against its schema", async () => {
    await refused(await sign({ schema: SCHEMAS.appendix, data: "0x1234" }), 422, "UndecodableData");
  });

  it("a 1 MB body: 413, unread", async () => {
    const s = await good();
    const huge = jsonOf({ ...s, padding: "x".repeat(1024 * 1024) });
    await refused(huge, 413, "PayloadTooLarge");
  });

  it("a legacy (version 0) package, and bodies that are no attestation", async () => {
    const s = await good();
    await refused(
      { ...s, version: 0, message: { ...s.message, version: 0 } },
      400,
      "UnsupportedOffchainVersion",
    );
    await refused({ hello: "world" }, 400, "InvalidRequestBody");
    await refused(JSON.stringify("not base64!"), 400, "InvalidRequestBody");
    await refused({ ...s, message: { ...s.message, time: "soon" } }, 400, "InvalidRequestBody");
  });

  it("the Astral SDK's OffchainLocationAttestation: 422 saying why it cannot be verified", async () => {
    // The shape as the Astral SDK's OffchainSigner makes it (DecentralizedGeo/astral-sdk at 2daf1b5,
    // src/eas/OffchainSigner.ts and src/core/types.ts): the EAS SDK signs version 2 over the v0.1 fields, and the
    // SDK keeps the unsigned fields, the uid, the signature as a JSON string, the signer and its own version.
    const eventTimestamp = Number(nowSeconds() - 60n);
    const point = JSON.stringify({ type: "Point", coordinates: [20, 20] });
    const unsigned = {
      eventTimestamp,
      srs: "EPSG:4326",
      locationType: "geojson-point",
      location: point,
      recipeType: [],
      recipePayload: [],
      mediaType: [],
      mediaData: [],
      memo: "astral",
    };
    const s = await sign({
      schema: SCHEMAS.v01,
      data: encodeLocationProof({
        locationType: "geojson-point",
        location: point,
        eventTimestamp: BigInt(eventTimestamp),
        memo: "astral",
      }),
      time: BigInt(eventTimestamp),
    });
    const astral = {
      ...unsigned,
      uid: s.uid,
      signature: JSON.stringify(s.signature),
      signer: signer.address,
      version: "astral-sdk-v0.1.0",
    };
    const res = await refused(astral, 422, "UnverifiableAstralAttestation");
    expect(res.body.message).toMatch(/salt/);
    // Why: the uid is a function of the salt the shape dropped; any other salt gives another uid.
    const salt = (s.message as { salt: Hex }).salt;
    expect(offchainUid(readPublication(JSON.parse(jsonOf(s)))).toLowerCase()).toBe(s.uid.toLowerCase());
    const other = readPublication(JSON.parse(jsonOf({ ...s, message: { ...s.message, salt: zeroHash } })));
    expect(salt).not.toBe(zeroHash);
    expect(offchainUid(other).toLowerCase()).not.toBe(s.uid.toLowerCase());
    // The object the EAS SDK returned to it is publishable as it is.
    expect((await post(jsonOf(s))).status).toBe(201);
  });

  it("the same message signed by another attester: its uid is held (409)", async () => {
    const s = await good();
    expect((await post(jsonOf(s))).status).toBe(201);
    const theirs = await sign(
      {
        schema: s.message.schema as Hex,
        data: s.message.data as Hex,
        time: s.message.time,
        recipient: s.message.recipient,
      },
      2,
      other,
    );
    // (version 2 salts each signature: the same uid needs the same salt)
    const same = await offchainFor(OffchainAttestationVersion.Version2).signOffchainAttestation(
      { ...s.message, salt: s.message.salt } as never,
      other,
    );
    expect(same.uid).toBe(s.uid);
    expect(theirs.uid).not.toBe(s.uid);
    await refused(same, 409, "UidConflict");
  });
});

describe("forms of one signature (lib/offchain/signature.ts)", () => {
  const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
  const word = (x: bigint) => `0x${x.toString(16).padStart(64, "0")}`;
  /** A fresh attestation, its signature rewritten by `form`, as the { sig, signer } package. */
  const publishForm = async (form: (sig: { v: number; r: string; s: string }) => object, lon: number) => {
    const s = await sign({ schema: SCHEMAS.v01, data: recordData("v01", lon, 33) });
    return post(jsonOf({ sig: { ...s, signature: form(s.signature) }, signer: signer.address }));
  };
  const highS = (sig: { v: number; r: string; s: string }) => ({
    r: sig.r,
    s: word(N - BigInt(sig.s)),
    v: sig.v === 27 ? 28 : 27,
  });

  it("the high-s twin and v as 0 or 1 are taken; the other parity, n - s alone, a packed s and r or s out of range are refused", async () => {
    const taken = [
      (sig: { v: number; r: string; s: string }) => sig,
      highS,
      (sig: { v: number; r: string; s: string }) => ({ ...sig, v: sig.v - 27 }),
    ];
    for (const [i, form] of taken.entries()) {
      const res = await publishForm(form, 70 + i);
      expect(res.status, `${i} ${JSON.stringify(res.body)}`).toBe(201);
      expect(res.body.signer).toBe(signer.address.toLowerCase());
    }
    const refusedForms = [
      (sig: { v: number; r: string; s: string }) => ({ ...sig, v: sig.v === 27 ? 28 : 27 }),
      (sig: { v: number; r: string; s: string }) => ({ ...sig, v: sig.v === 27 ? 1 : 0 }),
      (sig: { v: number; r: string; s: string }) => ({ ...highS(sig), v: sig.v }),
      // EIP-2098's packing of y parity 1 into s's top bit: an s beyond the curve order, refused
      (sig: { v: number; r: string; s: string }) => ({
        ...sig,
        s: word(BigInt(sig.s) | (1n << 255n)),
        v: 27,
      }),
      (sig: { v: number; r: string; s: string }) => ({ ...sig, r: word(N) }),
      (sig: { v: number; r: string; s: string }) => ({ ...sig, s: word(0n) }),
      // an r that is no point's x
      (sig: { v: number; r: string; s: string }) => ({ ...sig, r: word(5n) }),
    ];
    for (const [i, form] of refusedForms.entries()) {
      const res = await publishForm(form, 74 + i);
      expect(res.status, `${i}`).toBe(422);
      expect(res.body.code).toBe("InvalidSignature");
    }
  });
});

describe("publishing modes and limits", () => {
  const withEnv = (extra: Record<string, string>) =>
    setConfig(loadConfig({ LOG_LEVEL: "silent", RATE_LIMIT_PER_MINUTE: "0", ...env, ...extra }));
  afterAll(() => withEnv({}));

  it("PUBLISH_MODE=off refuses every publication (403 PublishingDisabled)", async () => {
    withEnv({ PUBLISH_MODE: "off" });
    const res = await post(jsonOf(await sign({ schema: SCHEMAS.v01, data: recordData("v01", 3, 3) })));
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("PublishingDisabled");
  });

  it("PUBLISH_MODE=allowlist takes the listed attesters only", async () => {
    withEnv({ PUBLISH_MODE: "allowlist", PUBLISH_ATTESTERS: other.address });
    const mine = await post(jsonOf(await sign({ schema: SCHEMAS.v01, data: recordData("v01", 4, 4) })));
    expect(mine.status).toBe(403);
    expect(mine.body.code).toBe("AttesterNotAllowed");
    const theirs = await post(
      jsonOf(await sign({ schema: SCHEMAS.v01, data: recordData("v01", 4, 4) }, 2, other)),
    );
    expect(theirs.status).toBe(201);
  });

  it("publications per attester per minute: the next one is a 429 with Retry-After", async () => {
    withEnv({
      PUBLISH_PER_MINUTE_ATTESTER: "2",
      RATE_LIMIT_PREFIX: `offchain-${process.pid}-${Date.now()}`,
    });
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof post>> | undefined;
    for (let i = 0; i < 3; i++) {
      last = await post(jsonOf(await sign({ schema: SCHEMAS.v01, data: recordData("v01", 50 + i, 5) })));
      statuses.push(last.status);
    }
    expect(statuses).toEqual([201, 201, 429]);
    expect(last!.body.code).toBe("TooManyRequests");
    expect(Number(last!.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("publications per client per minute", async () => {
    withEnv({
      PUBLISH_PER_MINUTE_CLIENT: "1",
      RATE_LIMIT_PREFIX: `offchain-c-${process.pid}-${Date.now()}`,
    });
    const first = await post(jsonOf(await sign({ schema: SCHEMAS.v01, data: recordData("v01", 60, 6) })));
    const second = await post(
      jsonOf(await sign({ schema: SCHEMAS.v01, data: recordData("v01", 61, 6) }, 2, other)),
    );
    expect([first.status, second.status]).toEqual([201, 429]);
  });
});
