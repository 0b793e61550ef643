/**
 * Extracts the test data of CQL2's abstract test suite (OGC 21-065r2, Annex A) into tests/data/cql2/annex/:
 *
 *   npx tsx scripts/cql2-annex-extract.ts <checkout of opengeospatial/ogcapi-features>
 *
 * - each layer of cql2/standard/data/ne110m4cql2.gpkg (Natural Earth 1:110m countries, populated places, rivers),
 *   converted by GDAL's ogr2ogr to GeoJSON with the properties of its queryables file (full coordinate precision:
 *   a rounded vertex would change what touches what);
 * - the queryables files themselves;
 * - every row of the tables "Predicates and expected results" in cql2/standard/annex_ats_*.adoc, with its
 *   conformance class, data source, predicate (asciidoc escapes removed) and expected count, and the table of
 *   predicate combinations of basic-cql2 with the expression it fills in.
 *
 * tests/ogc/cql2-annex.test.ts loads the data into PostgreSQL / PGlite and runs every predicate through the
 * service's parser and compiler.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const repo = process.argv[2];
if (!repo) throw new Error("usage: tsx scripts/cql2-annex-extract.ts <ogcapi-features checkout>");
const standard = join(repo, "cql2/standard");
const out = join(import.meta.dirname, "../tests/data/cql2/annex");
mkdirSync(out, { recursive: true });

const LAYERS = [
  "ne_110m_admin_0_countries",
  "ne_110m_populated_places_simple",
  "ne_110m_rivers_lake_centerlines",
];
for (const layer of LAYERS) {
  const queryables = JSON.parse(readFileSync(join(standard, "data", `${layer}.json`), "utf8"));
  writeFileSync(join(out, `${layer}.queryables.json`), `${JSON.stringify(queryables, null, 2)}\n`);
  const fields = Object.keys(queryables.properties).filter((k) => k !== "geom");
  const target = join(out, `${layer}.geojson`);
  rmSync(target, { force: true });
  execFileSync("ogr2ogr", [
    "-f",
    "GeoJSON",
    "-select",
    fields.join(","),
    "-lco",
    "RFC7946=NO",
    "-lco",
    "WRITE_BBOX=NO",
    "-lco",
    "COORDINATE_PRECISION=15",
    target,
    join(standard, "data/ne110m4cql2.gpkg"),
    layer,
  ]);
}

/** An asciidoc table cell's text: `…` stripped, the escapes `\<` and `\(` undone. */
const cell = (s: string) =>
  s
    .trim()
    .replace(/^`|`$/g, "")
    .replace(/\\([<(])/g, "$1");

type Row = {
  class: string;
  file: string;
  dependency?: string;
  source: string;
  predicate: string;
  expected: number;
};
const rows: Row[] = [];
const combinations: { p: string[]; expected: number }[] = [];
let expression = "";
for (const file of readdirSync(standard)
  .filter((f) => /^annex_ats_.*\.adoc$/.test(f))
  .sort()) {
  const cls = file.replace(/^annex_ats_|\.adoc$/g, "");
  const text = readFileSync(join(standard, file), "utf8");
  for (const line of text.split("\n")) {
    if (!line.startsWith("|")) continue;
    const cells = line.slice(1).split(/ \|/).map(cell);
    const count = Number(cells.at(-1));
    if (!Number.isInteger(count) || cells.at(-1) === "") continue;
    if (cells.length === 3 && cells[0]!.startsWith("ne_110m"))
      rows.push({ class: cls, file, source: cells[0]!, predicate: cells[1]!, expected: count });
    else if (cells.length === 4 && cells[1]!.startsWith("ne_110m"))
      rows.push({
        class: cls,
        file,
        dependency: cells[0]!,
        source: cells[1]!,
        predicate: cells[2]!,
        expected: count,
      });
    else if (cells.length === 5) combinations.push({ p: cells.slice(0, 4), expected: count });
  }
  // basic-cql2's combinations table comes with the expression to fill in; the other classes' "random
  // combinations" tests have no table (their expected counts depend on the combinations drawn).
  const m = /For the data source '[^']*', evaluate the filter expression `([^`]*\{p1\}[^`]*)`/.exec(text);
  if (m) expression = cell(m[1]!);
}
writeFileSync(
  join(out, "predicates.json"),
  `${JSON.stringify({ source: "opengeospatial/ogcapi-features cql2/standard/annex_ats_*.adoc", rows, combinations: { expression, source: "ne_110m_populated_places_simple", rows: combinations } }, null, 1)}\n`,
);
console.log(`${rows.length} predicates, ${combinations.length} combinations (${expression})`);
