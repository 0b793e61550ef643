// Publishing off-chain records (POST /api/v0/location-records, lib/offchain/) at 16 concurrent clients, in process
// (the real router and route wrapper, no sockets) over PostgreSQL holding N synthetic on-chain proofs: p50 and p95
// per publication, records per second, and how a publication's time splits between checking the signature (parse,
// EIP-712 recovery, uid) and the database (the held-uid lookup, the schema lookup, the insert), each measured alone.
// Off-chain records live in their own table, so the on-chain proofs' number bears on none of this.
// Every signature check recovers the signer's key (lib/offchain/signature.ts, libsecp256k1 in WebAssembly), whoever
// signed: --signers N signs the publications with N keys in turn (1 by default, as one app publishing its users'
// records).
// Beside the p50, the CPU this process spent per publication meanwhile: the clients share its one thread, so the p50
// is about the number of clients times it. --cpu-prof DIR writes a CPU profile of the timed publications alone.
// `npm run bench:offchain -- [--rows N] [--records N] [--clients N] [--signers N] [--reuse] [--db NAME]
// [--cpu-prof DIR] [--node-here]`: by default the goal's figure, 1,000,000 on-chain proofs, in database `lpqs_bench_offchain`
// (--db names another).
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { sql } from "drizzle-orm";
import { privateKeyToAccount } from "viem/accounts";
import { connect, getDb, setDatabase } from "../db/client.js";
import { CHAIN_DEFINITIONS } from "../lib/chains/registry.js";
import { LOCATION_SCHEMA_UID } from "../lib/chains/schema.js";
import { getConfig, loadConfig, setConfig } from "../lib/config.js";
import { encodeLocationProof } from "../lib/devnet/location-data.js";
import { createRouter } from "../lib/local/router.js";
import { attestTypes, readPublication } from "../lib/offchain/formats.js";
import { insertStats, offchainRow, storeRecord } from "../lib/offchain/store.js";
import {
  checkUid,
  locationSchemaOf,
  networkOf,
  offchainUid,
  recoverAttester,
} from "../lib/offchain/verify.js";
import { benchArgs, benchDatabase, benchDatabaseUrl, ROOT, requireNode24 } from "./common.js";

// Production runs Node 24 (its V8 is the one whose BigInt arithmetic the signature check spends its time in): from
// another Node, the benchmark runs itself again on Node 24 (requireNode24), unless --node-here.
if (!process.versions.node.startsWith("24.") && !process.argv.includes("--node-here")) {
  const run = spawnSync(
    requireNode24(),
    ["--import", "tsx", fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    { stdio: "inherit", cwd: ROOT },
  );
  process.exit(run.status ?? 1);
}

const args = benchArgs({
  numbers: { rows: 1_000_000, records: 2000, clients: 16, signers: 1 },
  flags: ["reuse", "node-here"],
  texts: ["db", "cpu-prof"],
});
const DB = args.db ?? "lpqs_bench_offchain";
const devnet = CHAIN_DEFINITIONS.find((c) => c.name === "devnet")!;
const accounts = Array.from({ length: args.signers }, (_, i) =>
  privateKeyToAccount(`0x${(0x4242n + BigInt(i)).toString(16).padStart(64, "0")}`),
);

/** N signed v2 attestations of the v0.1 schema, each its own point and salt, as the SDK's package JSON. */
async function signedBodies(n: number, offset: number): Promise<string[]> {
  const now = BigInt(Math.floor(Date.now() / 1000));
  const bodies: string[] = [];
  for (let i = 0; i < n; i++) {
    const k = offset + i;
    const point = JSON.stringify({
      type: "Point",
      coordinates: [(k % 360) - 180 + 0.5, (k % 170) - 85 + 0.25],
    });
    const data = encodeLocationProof({
      locationType: "geojson-point",
      location: point,
      eventTimestamp: now - BigInt(k),
    });
    const message = {
      version: 2,
      schema: LOCATION_SCHEMA_UID as `0x${string}`,
      recipient: "0x000000000000000000000000000000000000dEaD" as const,
      time: now,
      expirationTime: 0n,
      revocable: true,
      refUID: `0x${"00".repeat(32)}` as const,
      data,
      salt: `0x${k.toString(16).padStart(64, "0")}` as const,
    };
    const domain = {
      name: "EAS Attestation",
      version: "1.3.0",
      chainId: BigInt(devnet.chainId),
      verifyingContract: devnet.eas,
    };
    const account = accounts[k % accounts.length]!;
    const signature = await account.signTypedData({
      domain,
      types: { Attest: attestTypes(2) },
      primaryType: "Attest",
      message,
    } as never);
    const r = `0x${signature.slice(2, 66)}`;
    const s = `0x${signature.slice(66, 130)}`;
    const v = Number.parseInt(signature.slice(130, 132), 16);
    const uid = offchainUid({ version: 2, message });
    const sig = {
      version: 2,
      uid,
      domain,
      primaryType: "Attest",
      types: { Attest: attestTypes(2) },
      message,
      signature: { v, r, s },
    };
    bodies.push(
      JSON.stringify({ sig, signer: account.address }, (_, x) => (typeof x === "bigint" ? x.toString() : x)),
    );
  }
  return bodies;
}

const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)]!;

await benchDatabase(DB, args.rows, args.reuse);
const handle = await connect(benchDatabaseUrl(DB), "pg");
setDatabase(handle);
setConfig(
  loadConfig({
    DATABASE_URL: benchDatabaseUrl(DB),
    CHAINS: "devnet",
    RATE_LIMIT_PER_MINUTE: "0",
    PUBLISH_PER_MINUTE_CLIENT: "0",
    PUBLISH_PER_MINUTE_ATTESTER: "0",
    LOG_LEVEL: "silent",
  }),
);
await handle.db.execute(sql`truncate offchain_records`);
const router = createRouter(ROOT);
try {
  const bodies = await signedBodies(args.records + 500, 0);
  const timed = bodies.slice(0, args.records);
  // Warm-up: the first publications load modules and open connections.
  for (const body of bodies.slice(args.records, args.records + 20)) await publish(body);

  const times: number[] = [];
  let next = 0;
  const profiler = args["cpu-prof"] ? new Session() : undefined;
  if (profiler) {
    profiler.connect();
    await profiler.post("Profiler.enable");
    await profiler.post("Profiler.start");
  }
  const insertsBefore = { ...insertStats };
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: args.clients }, async () => {
      while (next < timed.length) {
        const body = timed[next++]!;
        const t = performance.now();
        const status = await publish(body);
        times.push(performance.now() - t);
        if (status !== 201) throw new Error(`publication answered ${status}`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMs = (cpu.user + cpu.system) / 1000 / timed.length;
  const perInsert = (insertStats.rows - insertsBefore.rows) / (insertStats.inserts - insertsBefore.inserts);
  if (profiler) {
    const { profile } = await profiler.post("Profiler.stop");
    mkdirSync(args["cpu-prof"]!, { recursive: true });
    const file = join(args["cpu-prof"]!, `offchain-publish-${Date.now()}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    console.log(`CPU profile of the timed publications: ${file}`);
    profiler.disconnect();
  }

  // The split, each part alone and sequential: verification (CPU: parse, digest, key recovery, uid) and the
  // database's part (schema, decode, insert), over 480 further attestations.
  const rest = bodies.slice(args.records + 20);
  const config = getConfig();
  const db = await getDb();
  const verify = async (body: string) => {
    const signed = readPublication(JSON.parse(body));
    const network = networkOf(config, signed);
    const attester = await recoverAttester(signed);
    checkUid(signed);
    return { signed, network, attester };
  };
  let verifyMs = 0;
  let dbMs = 0;
  for (const body of rest) {
    let t = performance.now();
    const { signed, network, attester } = await verify(body);
    verifyMs += performance.now() - t;
    t = performance.now();
    const schema = await locationSchemaOf(db, config, network, signed.message.schema);
    const row = offchainRow(network, schema, signed, attester);
    await storeRecord(db, row);
    dbMs += performance.now() - t;
  }
  const n = rest.length;
  console.log(
    `Node ${process.versions.node}; ${args.rows.toLocaleString("en")} on-chain proofs in ${DB}; ${timed.length} publications by ${args.clients} concurrent clients, signed by ${args.signers} key(s)`,
  );
  const p50 = percentile(times, 0.5);
  console.log(
    `publish p50 ${p50.toFixed(1)} ms, p95 ${percentile(times, 0.95).toFixed(1)} ms, ${(timed.length / seconds).toFixed(0)} records/s, ${cpuMs.toFixed(2)} ms of this process's CPU per publication, ${perInsert.toFixed(1)} records per insert (group commit)  goal p50 <= 20 ms: ${p50 <= 20 ? "met" : "MISSED"}`,
  );
  console.log(
    `per publication, sequential: signature check ${(verifyMs / n).toFixed(2)} ms (parse, EIP-712 digest, key recovery, uid), database ${(dbMs / n).toFixed(2)} ms (schema, decode, insert)`,
  );
} finally {
  setDatabase(undefined);
  await handle.close();
}

async function publish(body: string): Promise<number> {
  const res = await router.handle(
    new Request("http://localhost:3000/api/v0/location-records", {
      method: "POST",
      headers: { "content-type": "application/json", "x-real-ip": "127.0.0.1" },
      body,
    }),
  );
  await res.arrayBuffer();
  return res.status;
}
