#!/usr/bin/env bash
# Reads the OGC API Features interface with real clients, GDAL's OAPIF driver (apt-get install -y gdal-bin) and OWSLib, against
# the local dev server on an embedded database holding the devnet's sample attestations (indexed from a local anvil
# by the real sync engine: points, a polygon, a line, a multipoint across the antimeridian, geohash cells, proofs
# without coordinates or event time) and synthetic sample proofs (points, polygons, no coordinates):
#   1. `ogrinfo -ro -so` reports a Point layer with the feature count the API reports (numberMatched);
#   2. the whole location-proofs collection exports to GeoPackage and to ESRI Shapefile with every feature written
#      (Point layers), and location-proof-shapes to GeoPackage with every feature and its geometry types; GDAL 3.8+
#      pages with limit=1000, the maximum the OpenAPI document declares;
#   3. a -spat read returns exactly the features with a geometry the API puts inside that bbox (GDAL drops the
#      features without geometry that the API adds by OGC Part 1's rule);
#   4. a -where "chain = 'base'" read returns exactly the base proofs, and the server's log shows that GDAL sent the
#      filter as a query parameter (it does so only when the OpenAPI document declares `chain` on the items path);
#   5. a -spat read of a city's box gets the city's features on its first page: the page GDAL asked for first (read
#      back from the server's log and requested again) holds only features with a geometry in the box (located
#      first), and the features GDAL wrote from it are that page's first ones, in its order.
#   6. GDAL's MVT driver reads the z0 vector tile, with and without a filter: the same proofs as the items; QGIS
#      renders the tiles where PyQGIS is installed.
#   7. GDAL 3.7+ reads a layer in EPSG:4326 (OAPIF's CRS open option); GDAL 3.6 cannot ask for a CRS (see there).
#   8. OWSLib (apt-get install -y python3-owslib) reads both collections in EPSG:4326, latitude first.
# Exits non-zero on any failure. Takes about a minute.
set -euo pipefail
cd "$(dirname "$0")/../.."

SEED=${OGC_CLIENTS_SEED:-300}
WORK=$(mktemp -d)
LOG="$WORK/server.log"
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "ogc-clients: FAIL: $*" >&2; echo "--- server log (tail)" >&2; tail -n 20 "$LOG" >&2 || true; exit 1; }
passed=0
ok() { passed=$((passed + 1)); echo "ogc-clients: ok: $*"; }

command -v ogrinfo >/dev/null || fail "ogrinfo not found (apt-get install -y gdal-bin)"
echo "ogc-clients: $(ogrinfo --version)"

# A free port for the devnet's anvil (the server itself takes PORT=0).
DEVNET_PORT=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
# The embedded database (no DATABASE_URL), debug logs (the items route logs its query string there).
env -u DATABASE_URL PORT=0 DEVNET_PORT="$DEVNET_PORT" DATA_DIR="$WORK/data" RATE_LIMIT_PER_MINUTE=0 LOG_LEVEL=debug \
  CHAINS=devnet node_modules/.bin/tsx scripts/dev.ts --seed "$SEED" >"$LOG" 2>&1 &
SERVER_PID=$!
BASE=""
for _ in $(seq 1 240); do
  BASE=$(grep -o 'listening on http://[0-9.:]*' "$LOG" | head -n1 | sed 's/listening on //' || true)
  [ -n "$BASE" ] && break
  kill -0 "$SERVER_PID" 2>/dev/null || fail "the dev server exited"
  sleep 0.5
done
[ -n "$BASE" ] || fail "the dev server did not start within 120 s"
OGC="$BASE/api/ogc"
ITEMS="$OGC/collections/location-proofs/items"
SHAPES="$OGC/collections/location-proof-shapes/items"
echo "ogc-clients: server at $BASE"

api_matched() { node -e 'fetch(process.argv[1]).then((r) => r.json()).then((b) => console.log(b.numberMatched))' "$1"; }

# The devnet's attestations are indexed by the first sync (a few seconds after start): wait for all of them.
SEEDED=$(sed -n 's/.*seeded \([0-9]*\) sample attestations.*/\1/p' "$LOG" | head -n1)
[ -n "$SEEDED" ] || fail "the devnet seeded no attestations"
for _ in $(seq 1 120); do
  [ "$(api_matched "$ITEMS?chain=devnet&limit=1")" = "$SEEDED" ] && break
  sleep 1
done
[ "$(api_matched "$ITEMS?chain=devnet&limit=1")" = "$SEEDED" ] || fail "the devnet's $SEEDED attestations were not indexed within 120 s"
TOTAL=$((SEED + SEEDED))
echo "ogc-clients: $SEEDED devnet attestations indexed, $TOTAL proofs in all"

# Feature ids the API returns for a query (all pages of 1000), sorted; with geometry=1 only those with a geometry.
api_ids() {
  node -e '
    const [url, withGeometry] = process.argv.slice(1);
    (async () => {
      const ids = [];
      for (let next = url; next; ) {
        const body = await (await fetch(next)).json();
        ids.push(...body.features.filter((f) => !withGeometry || f.geometry).map((f) => f.id));
        next = body.links.find((l) => l.rel === "next")?.href;
      }
      console.log(ids.sort().join("\n"));
    })().catch((e) => { console.error(e); process.exit(1); });' "$1" "${2:-}"
}
gdal_ids() { ogrinfo -ro -al -q "OAPIF:$OGC" location-proofs "$@" | sed -n 's/^ *id (String) = //p' | sort; }
# ogrinfo -so of a written file: its geometry type and feature count.
file_summary() { ogrinfo -ro -so "$1" "$2" | sed -n 's/^Geometry: //p; s/^Feature Count: //p' | paste -sd' '; }

# 1. The layer as GDAL sees it: Point, with numberMatched features.
MATCHED=$(api_matched "$ITEMS?limit=1")
[ "$MATCHED" = "$TOTAL" ] || fail "the API numberMatched is $MATCHED, $TOTAL proofs were loaded"
SUMMARY=$(ogrinfo -ro -so "OAPIF:$OGC" location-proofs)
COUNT=$(sed -n 's/^Feature Count: //p' <<<"$SUMMARY")
GEOMETRY=$(sed -n 's/^Geometry: //p' <<<"$SUMMARY")
[ "$COUNT" = "$MATCHED" ] || fail "ogrinfo reports $COUNT features, the API numberMatched is $MATCHED"
[ "$GEOMETRY" = "Point" ] || fail "ogrinfo reports a $GEOMETRY layer, not Point"
ok "ogrinfo -so reports Geometry: Point, Feature Count: $COUNT (= numberMatched)"

# 2. Whole-collection exports: every feature written, as a Point layer; the shapes with their own geometry types.
ogr2ogr -f GPKG "$WORK/proofs.gpkg" "OAPIF:$OGC" location-proofs 2>"$WORK/gpkg.err" || fail "GeoPackage export: $(cat "$WORK/gpkg.err")"
[ "$(file_summary "$WORK/proofs.gpkg" location-proofs)" = "Point $MATCHED" ] \
  || fail "GeoPackage: $(file_summary "$WORK/proofs.gpkg" location-proofs), expected Point $MATCHED"
# GDAL 3.8+ takes its page size from the maximum of `limit` in the API definition; older GDAL pages by 10
# (-oo PAGE_SIZE=1000 raises it).
GDAL_VERSION=$(ogrinfo --version | sed 's/^GDAL \([0-9.]*\).*/\1/')
if [ "$(printf '%s\n3.8\n' "$GDAL_VERSION" | sort -V | head -n1)" != "3.8" ]; then
  ok "ogr2ogr -f GPKG wrote all $MATCHED features as a Point layer (GDAL < 3.8 pages by 10 unless -oo PAGE_SIZE)"
else
  grep -q '"msg":"ogc items".*"query":"?[^"]*limit=1000' "$LOG" \
    || fail "GDAL did not page with limit=1000 (the OpenAPI maximum)"
  ok "ogr2ogr -f GPKG wrote all $MATCHED features as a Point layer, in pages of limit=1000"
fi

ogr2ogr -f "ESRI Shapefile" "$WORK/shp" "OAPIF:$OGC" location-proofs \
  -mapFieldType StringList=String,IntegerList=String,RealList=String 2>"$WORK/shp.err" \
  || fail "Shapefile export: $(cat "$WORK/shp.err")"
grep -qi "non-point\|Attempt to write" "$WORK/shp.err" && fail "Shapefile export warned: $(cat "$WORK/shp.err")"
[ "$(file_summary "$WORK/shp/location-proofs.shp" location-proofs)" = "Point $MATCHED" ] \
  || fail "Shapefile: $(file_summary "$WORK/shp/location-proofs.shp" location-proofs), expected Point $MATCHED"
ok "ogr2ogr -f \"ESRI Shapefile\" wrote all $MATCHED features as a Point layer"

SHAPES_MATCHED=$(api_matched "$SHAPES?limit=1")
[ "$SHAPES_MATCHED" = "$MATCHED" ] || fail "location-proof-shapes numberMatched $SHAPES_MATCHED, location-proofs $MATCHED"
ogr2ogr -f GPKG "$WORK/shapes.gpkg" "OAPIF:$OGC" location-proof-shapes 2>"$WORK/shapes.err" \
  || fail "GeoPackage export of the shapes: $(cat "$WORK/shapes.err")"
WRITTEN=$(ogrinfo -ro -so "$WORK/shapes.gpkg" location-proof-shapes | sed -n 's/^Feature Count: //p')
[ "$WRITTEN" = "$SHAPES_MATCHED" ] || fail "shapes GeoPackage holds $WRITTEN features, numberMatched is $SHAPES_MATCHED"
TYPES=$(ogrinfo -ro -q -dialect sqlite -sql "select distinct ST_GeometryType(geom) from \"location-proof-shapes\" where geom is not null" \
  "$WORK/shapes.gpkg" | sed -n 's/^ *ST_GeometryType(geom) (String) = //p' | sort | paste -sd,)
for t in POINT POLYGON LINESTRING MULTIPOINT; do
  grep -qw "$t" <<<"$TYPES" || fail "the shapes GeoPackage has no $t (types: $TYPES)"
done
ok "ogr2ogr -f GPKG wrote all $WRITTEN features of location-proof-shapes ($TYPES)"

# 3. A spatial filter (Europe): GDAL sends bbox and keeps the features with a geometry inside it.
api_ids "$ITEMS?bbox=-10,35,30,60&limit=1000" geometry >"$WORK/api-spat"
gdal_ids -spat -10 35 30 60 >"$WORK/gdal-spat"
[ -s "$WORK/api-spat" ] || fail "no proofs inside the test bbox (seed data changed?)"
diff -q "$WORK/api-spat" "$WORK/gdal-spat" >/dev/null || fail "-spat read differs from the API's bbox result"
grep -q '"query":"?[^"]*bbox=' "$LOG" || fail "GDAL did not send bbox to the server"
ok "-spat -10 35 30 60 returned the $(wc -l <"$WORK/api-spat") proofs inside the bbox"

# 4. An attribute filter answered by the server.
api_ids "$ITEMS?chain=base&limit=1000" >"$WORK/api-where"
gdal_ids -where "chain = 'base'" >"$WORK/gdal-where"
[ -s "$WORK/api-where" ] || fail "no base proofs in the seed data"
diff -q "$WORK/api-where" "$WORK/gdal-where" >/dev/null || fail "-where read differs from the API's chain=base result"
# One grep, no pipe: under pipefail, `grep | grep -q` fails when grep -q exits at its first match while the first
# grep is still writing (SIGPIPE).
grep -q '"msg":"ogc items".*"query":"?[^"]*chain=base' "$LOG" \
  || fail "the server log shows no items request carrying chain=base: GDAL filtered locally"
ok "-where \"chain = 'base'\" returned $(wc -l <"$WORK/api-where") proofs, filtered by the server (chain=base in its request log)"
# 5. A city's box (Berlin): the features with a geometry come first, so GDAL's first page is the city's own.
CITY=(13.3 52.45 13.5 52.57)
FROM_LINE=$(($(wc -l <"$LOG") + 1))
ogr2ogr -f GeoJSON "$WORK/city.geojson" "OAPIF:$OGC" location-proofs -spat "${CITY[@]}" -limit 5 \
  2>"$WORK/city.err" || fail "-spat read of the city box: $(cat "$WORK/city.err")"
FIRST_PAGE=$(tail -n +"$FROM_LINE" "$LOG" | grep '"msg":"ogc items"' | grep -o '"query":"[^"]*bbox=[^"]*"' | head -n1 \
  | sed 's/^"query":"//; s/"$//')
[ -n "$FIRST_PAGE" ] || fail "no items request with bbox in the server log for the city read"
WROTE=$(node -e 'const d = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); console.log(d.features.map((f) => f.properties.id ?? f.properties.uid ?? f.id).join("\n"))' "$WORK/city.geojson")
node -e '
  const [url, box, wroteText] = [process.argv[1], process.argv[2].split(",").map(Number), process.argv[3]];
  const [w, s, e, n] = box;
  const fail = (m) => { console.error(m); process.exit(1); };
  (async () => {
    const page = await (await fetch(url)).json();
    // The located features in the box: CQL2 keeps only features whose geometry intersects it.
    const count = new URL(url);
    count.searchParams.delete("bbox");
    count.searchParams.set("limit", "1");
    count.searchParams.set("filter", `S_INTERSECTS(geometry, BBOX(${box}))`);
    const located = (await (await fetch(count)).json()).numberMatched;
    const limit = Number(new URL(url).searchParams.get("limit") ?? 10);
    if (located < 1) fail("no features in the city box (seed data changed?)");
    if (page.features.length !== Math.min(limit, located))
      fail(`the first page holds ${page.features.length} features, the box ${located} located ones (limit ${limit})`);
    for (const f of page.features) {
      if (!f.geometry) fail(`the first page holds ${f.id}, which has no geometry`);
      const [x, y] = f.geometry.coordinates;
      if (x < w || x > e || y < s || y > n) fail(`the first page holds ${f.id} at ${x},${y}, outside the box`);
    }
    const wrote = wroteText.split("\n").filter(Boolean);
    const first = page.features.slice(0, wrote.length).map((f) => f.id);
    if (wrote.length === 0 || wrote.join() !== first.join()) fail(`GDAL wrote ${wrote} from a first page of ${first}`);
    console.log(`${page.features.length} ${located}`);
  })().catch((error) => fail(String(error)));' "$ITEMS$FIRST_PAGE" "$(IFS=,; echo "${CITY[*]}")" "$WROTE" \
  >"$WORK/city.check" 2>&1 || fail "city box: $(cat "$WORK/city.check")"
read -r CITY_PAGE CITY_LOCATED <"$WORK/city.check"
ok "-spat ${CITY[*]} (Berlin): GDAL's first page ($FIRST_PAGE) holds $CITY_PAGE of the box's $CITY_LOCATED located features and nothing else; GDAL wrote its first $(wc -l <<<"$WROTE")"

# 6. Vector tiles (OGC API - Tiles, lib/tiles/): GDAL's MVT driver reads a tile. The tile is fetched to a path that
# ends in z/x/y.pbf, from which the driver georeferences it (opened from a URL, the driver takes the URL for a
# directory of tiles and asks for z/x/y.pbf and metadata.json beside it). The z0 tile holds every proof with
# coordinates, as points here (the data holds fewer than the clusters threshold): the same uids the items give.
TILES="$OGC/collections/location-proofs/tiles/WebMercatorQuad"
mvt_uids() { ogrinfo -ro -al -q "$1" location-proofs | sed -n 's/^ *uid (String) = //p' | sort; }
for query in "" "chain=devnet"; do
  mkdir -p "$WORK/mvt${query:+-f}/0/0"
  TILE="$WORK/mvt${query:+-f}/0/0/0.pbf"
  curl -sf -o "$TILE" "$TILES/0/0/0${query:+?$query}" || fail "GET the z0 tile${query:+ ?$query}"
  ogrinfo -ro -so "$TILE" 2>"$WORK/mvt.err" | grep -q "location-proofs (Point)" \
    || fail "GDAL's MVT driver does not read the tile: $(cat "$WORK/mvt.err")"
  api_ids "$ITEMS?limit=1000${query:+&$query}" geometry >"$WORK/api-mvt"
  mvt_uids "$TILE" >"$WORK/gdal-mvt"
  [ -s "$WORK/api-mvt" ] || fail "no proofs with coordinates${query:+ for $query}"
  diff -q "$WORK/api-mvt" "$WORK/gdal-mvt" >/dev/null \
    || fail "the z0 tile${query:+ ?$query} read by GDAL holds $(wc -l <"$WORK/gdal-mvt") proofs, the items $(wc -l <"$WORK/api-mvt") with coordinates"
  ok "GDAL's MVT driver read the z0 tile${query:+ ?$query}: the $(wc -l <"$WORK/api-mvt") proofs with coordinates the items give"
done
# The tileset: GDAL's OGCAPI driver follows the collection's tilesets-vector link to the tileset, its tile matrix set
# and its tiles. GDAL before 3.7 parses only the draft (1.0) JSON of tile matrix sets, not the standard's 2.0 this
# service serves, so the check runs from GDAL 3.7 on.
if [ "$(printf '%s\n3.7\n' "$GDAL_VERSION" | sort -V | head -n1)" = "3.7" ]; then
  ogrinfo -ro -so "OGCAPI:$OGC/collections/location-proofs" -oo API=TILES 2>"$WORK/ogcapi.err" | grep -q "location-proofs" \
    || fail "GDAL's OGCAPI driver does not read the tileset: $(cat "$WORK/ogcapi.err")"
  ok "GDAL's OGCAPI driver read the tileset (API=TILES)"
else
  echo "ogc-clients: skipped: the tileset through GDAL's OGCAPI driver (GDAL $GDAL_VERSION reads only draft tile matrix sets)"
fi
# QGIS loads the tile URL template as a vector tile layer and renders the proofs (scripts/ci/qgis-tiles.py), where
# PyQGIS is installed (apt-get install -y --no-install-recommends python3-qgis qgis-providers: large, so CI does not
# install it for this).
if /usr/bin/python3 -c "import qgis.core" 2>/dev/null; then
  QT_QPA_PLATFORM=offscreen /usr/bin/python3 scripts/ci/qgis-tiles.py "$BASE" "$WORK/qgis-tiles.png" >"$WORK/qgis.out" 2>&1 \
    || fail "QGIS: $(tail -n 3 "$WORK/qgis.out")"
  ok "$(grep -o 'QGIS .* rendered the tiles[^)]*)' "$WORK/qgis.out")"
else
  echo "ogc-clients: skipped: QGIS rendering the tiles (PyQGIS not installed)"
fi
# 7. OGC API - Features Part 2 (lib/crs/): GDAL 3.7 and later read a layer in the CRS given by the OAPIF driver's CRS
# open option. The layer in EPSG:4326 (latitude first on the wire) must hold the same positions as the CRS84 read:
# GDAL swaps the axes back by the CRS's declared order, so a server writing them in the wrong order shows here.
if ogrinfo --format OAPIF 2>/dev/null | grep -q 'Option name="CRS"'; then
  ogrinfo -ro -al -q "OAPIF:$OGC" location-proofs -limit 20 | grep -o 'POINT ([^)]*)' >"$WORK/crs84.points"
  ogrinfo -ro -al -q "OAPIF:$OGC" location-proofs -oo CRS=EPSG:4326 -limit 20 | grep -o 'POINT ([^)]*)' \
    >"$WORK/epsg4326.points" 2>"$WORK/crs.err" || fail "EPSG:4326 read: $(cat "$WORK/crs.err")"
  [ -s "$WORK/crs84.points" ] || fail "the CRS84 read returned no points"
  cmp -s "$WORK/crs84.points" "$WORK/epsg4326.points" \
    || fail "the EPSG:4326 layer's points differ from the CRS84 layer's: $(diff "$WORK/crs84.points" "$WORK/epsg4326.points" | head -n 4)"
  ok "GDAL read location-proofs in EPSG:4326 (crs=…/EPSG/0/4326): $(wc -l <"$WORK/crs84.points") points in the right axis order"
else
  # GDAL 3.6 (Debian 12's gdal-bin) has no way to ask the server for another CRS: its OAPIF driver's open options are
  # URL, PAGE_SIZE, USERPWD and IGNORE_SCHEMA, it never sends crs and reads every page as CRS84 (Part 2 support, the
  # CRS and PREFERRED_CRS options, came in 3.7). Reading an items URL with crs=… through the GeoJSON driver would
  # not test anything: that driver reads GeoJSON as CRS84 whatever the server wrote. OWSLib (below) covers the axis
  # order meanwhile.
  echo "ogc-clients: skipped: a layer in EPSG:4326 through GDAL's OAPIF driver (GDAL $GDAL_VERSION has no CRS open option; 3.7 added it)"
fi
# 8. OWSLib (Debian's python3-owslib; the system Python, where apt puts it): its OGC API - Features client reads both
# collections in EPSG:4326, latitude first, and a box given latitude first (scripts/ci/owslib-crs.py).
if /usr/bin/python3 -c "import owslib.ogcapi.features" 2>/dev/null; then
  /usr/bin/python3 scripts/ci/owslib-crs.py "$BASE" >"$WORK/owslib.out" 2>&1 || fail "OWSLib: $(tail -n 3 "$WORK/owslib.out")"
  while read -r line; do ok "${line#owslib: ok: }"; done < <(grep '^owslib: ok: ' "$WORK/owslib.out")
else
  fail "OWSLib not found (apt-get install -y python3-owslib)"
fi
echo "ogc-clients: $passed passed, 0 failed"
