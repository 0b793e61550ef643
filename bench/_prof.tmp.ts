import { sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import pg from "pg";
import { connect } from "../db/client.js";
import { loadConfig, setConfig } from "../lib/config.js";
import { encodeTile } from "../lib/tiles/mvt.js";
import { tileContent } from "../lib/tiles/tile-content.js";

const url = "postgres://postgres@127.0.0.1:5432/lpqs_bench_tiles";
setConfig(loadConfig({ DATABASE_URL: url, LOG_LEVEL: "silent" }));
const h = await connect(url, "pg");
const c = new pg.Client(url);
await c.connect();
const OGC = { includeRevoked: true, bboxMatchesMissing: true, timesMatchMissing: true };
const tiles = process.argv.slice(2).map((s) => {
  const [z, x, y] = s.split("/").map(Number);
  return { z: z!, x: x!, y: y! };
});
const POINT = `ST_Transform(ST_SetSRID(ST_MakePoint(longitude, greatest(-85.0511287798066, least(85.0511287798066, latitude))), 4326), 3857)`;
const OWN = `select ST_AsMVT(q, 'location-proofs', 4096, 'geom') as mvt from (
    select uid, chain, prover, to_char(event_timestamp at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as event_timestamp,
      revoked, left(memo, 40) as memo, ST_AsMVTGeom(${POINT}, ST_TileEnvelope($1, $2, $3), 4096, 0, false) as geom
    from location_proofs where ${POINT} && ST_TileEnvelope($1, $2, $3)) q`;
const med = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const t of tiles) {
  const a: number[] = [],
    b: number[] = [],
    e: number[] = [],
    q: number[] = [];
  for (let i = 0; i < 60; i++) {
    let s = performance.now();
    const content = await tileContent(h.db, t, OGC);
    const m = performance.now();
    encodeTile(content);
    e.push(performance.now() - m);
    a.push(performance.now() - s);
    s = performance.now();
    await c.query(OWN, [t.z, t.x, t.y]);
    b.push(performance.now() - s);
  }
  console.log(
    `${t.z}/${t.x}/${t.y} ours ${med(a).toFixed(2)} (encode ${med(e).toFixed(2)}) postgis ${med(b).toFixed(2)} ratio ${(med(a) / med(b)).toFixed(2)}`,
  );
}
await c.end();
await h.close();
