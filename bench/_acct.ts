// temporary: CPU accounting of one publication, sequential
import { sql } from "drizzle-orm";
import { privateKeyToAccount } from "viem/accounts";
import { connect, getDb, setDatabase } from "../db/client.js";
import { CHAIN_DEFINITIONS } from "../lib/chains/registry.js";
import { LOCATION_SCHEMA_UID } from "../lib/chains/schema.js";
import { getConfig, loadConfig, setConfig } from "../lib/config.js";
import { encodeLocationProof } from "../lib/devnet/location-data.js";
import { createRouter } from "../lib/local/router.js";
import { attestTypes, readPublication } from "../lib/offchain/formats.js";
import { offchainRow, storeRecord } from "../lib/offchain/store.js";
import { serializeOffchain } from "../lib/offchain/records.js";
import { json } from "../lib/http/respond.js";
import { checkUid, locationSchemaOf, networkOf, offchainUid, recoverAttester } from "../lib/offchain/verify.js";
import { benchDatabaseUrl, ROOT } from "./common.js";
const devnet = CHAIN_DEFINITIONS.find((c) => c.name === "devnet")!;
const account = privateKeyToAccount(`0x${"42".repeat(32)}`);
const N = Number(process.argv[2] ?? 600);
async function bodies(n: number, offset: number) {
  const now = BigInt(Math.floor(Date.now() / 1000)); const out: string[] = [];
  for (let i = 0; i < n; i++) { const k = offset + i;
    const data = encodeLocationProof({ locationType: "geojson-point", location: JSON.stringify({ type: "Point", coordinates: [(k % 360) - 180 + 0.5, (k % 170) - 85 + 0.25] }), eventTimestamp: now - BigInt(k) });
    const message = { version: 2, schema: LOCATION_SCHEMA_UID as `0x${string}`, recipient: "0x000000000000000000000000000000000000dEaD" as const, time: now, expirationTime: 0n, revocable: true, refUID: `0x${"00".repeat(32)}` as const, data, salt: `0x${k.toString(16).padStart(64, "0")}` as const };
    const domain = { name: "EAS Attestation", version: "1.3.0", chainId: BigInt(devnet.chainId), verifyingContract: devnet.eas };
    const signature = await account.signTypedData({ domain, types: { Attest: attestTypes(2) }, primaryType: "Attest", message } as never);
    const sig = { version: 2, uid: offchainUid({ version: 2, message }), domain, primaryType: "Attest", types: { Attest: attestTypes(2) }, message, signature: { v: Number.parseInt(signature.slice(130, 132), 16), r: `0x${signature.slice(2, 66)}`, s: `0x${signature.slice(66, 130)}` } };
    out.push(JSON.stringify({ sig, signer: account.address }, (_, x) => (typeof x === "bigint" ? x.toString() : x)));
  } return out;
}
const handle = await connect(benchDatabaseUrl("lpqs_h_pub_small"), "pg"); setDatabase(handle);
setConfig(loadConfig({ DATABASE_URL: benchDatabaseUrl("lpqs_h_pub_small"), CHAINS: "devnet", RATE_LIMIT_PER_MINUTE: "0", PUBLISH_PER_MINUTE_CLIENT: "0", PUBLISH_PER_MINUTE_ATTESTER: "0", LOG_LEVEL: "silent" }));
await handle.db.execute(sql`truncate offchain_records`);
const router = createRouter(ROOT);
const all = await bodies(3 * N + 50, 0);
const post = async (body: string) => { const r = await router.handle(new Request("http://localhost:3000/api/v0/location-records", { method: "POST", headers: { "content-type": "application/json", "x-real-ip": "127.0.0.1" }, body })); await r.arrayBuffer(); if (r.status !== 201) throw new Error(String(r.status)); };
for (const b of all.slice(0, 50)) await post(b);
const tcpu = () => ((process as any).threadCpuUsage ? (process as any).threadCpuUsage() : process.cpuUsage()); const cpu = async (name: string, items: string[], f: (b: string) => unknown) => { const th0 = tcpu(); const c0 = process.cpuUsage(); const t0 = performance.now(); for (const b of items) await f(b); const th = tcpu(); const c = process.cpuUsage(c0); console.log(`${name.padEnd(36)} main thread ${((th.user - th0.user + th.system - th0.system) / 1000 / items.length).toFixed(3)} user ${(c.user / 1000 / items.length).toFixed(3)} sys ${(c.system / 1000 / items.length).toFixed(3)} ms  wall ${((performance.now() - t0) / items.length).toFixed(3)} ms`); };
const config = getConfig(); const db = await getDb();
const { Session } = await import("node:inspector/promises"); const { writeFileSync } = await import("node:fs");
const prof = new Session(); prof.connect(); await prof.post("Profiler.enable"); await prof.post("Profiler.start");
await cpu("full publication via router", all.slice(50, 50 + N), post);
const { profile } = await prof.post("Profiler.stop"); writeFileSync("/tmp/pub/full/f.cpuprofile", JSON.stringify(profile));
const parsed = all.slice(50 + N, 50 + 2 * N).map((b) => readPublication(JSON.parse(b)));
await cpu("JSON.parse + readPublication", all.slice(50 + N, 50 + 2 * N), (b) => readPublication(JSON.parse(b)));
let i = 0; await cpu("networkOf + recoverAttester", all.slice(0, N), async () => { const s = parsed[i++]!; networkOf(config, s); await recoverAttester(s); });
i = 0; await cpu("checkUid", all.slice(0, N), () => checkUid(parsed[i++]!));
const schema = await locationSchemaOf(db, config, networkOf(config, parsed[0]!), parsed[0]!.message.schema);
const net = networkOf(config, parsed[0]!);
i = 0; const rows = parsed.map((s) => offchainRow(net, schema, s, account.address));
await cpu("offchainRow (decode, package)", all.slice(0, N), () => offchainRow(net, schema, parsed[i++]!, account.address));
i = 0; const stored: any[] = [];


await cpu("storeRecord (node side)", all.slice(0, N), async () => { stored.push((await storeRecord(db, rows[i++]!)).row); });

await cpu("select 1 via db.execute", all.slice(0, N), () => db.execute(sql`select 1`));
i = 0; await cpu("serializeOffchain + json", all.slice(0, N), () => json(serializeOffchain(stored[i++]!, "http://localhost:3000"), { status: 201 }).arrayBuffer());
i = 0; await cpu("new Request (bench client)", all.slice(0, N), (body) => new Request("http://localhost:3000/api/v0/location-records", { method: "POST", headers: { "content-type": "application/json", "x-real-ip": "127.0.0.1" }, body }));
await handle.close();
