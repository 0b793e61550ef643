import { readdirSync, readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { parseCql2 } from "../../lib/ogc/cql2/parse.js";
import { parseCql2Json } from "../../lib/ogc/cql2/parse-json.js";

/**
 * The standard's paired examples (tests/data/cql2/SOURCE.md): the text and the JSON of each example parse to one
 * tree, and every JSON example is valid against the standard's JSON Schema (cql2.json), checked with ajv.
 */
const DIR = new URL("../data/cql2/", import.meta.url);
const read = (path: string) => readFileSync(new URL(path, DIR), "utf8");
const texts = readdirSync(new URL("examples/text/", DIR)).filter((f) => f.endsWith(".txt"));
const jsons = readdirSync(new URL("examples/json/", DIR)).filter((f) => f.endsWith(".json"));

/** Examples of custom functions (the `functions` class), which this service does not serve. */
const FUNCTIONS = ["clause6_01", "clause6_02b", "clause7_18", "example68", "example69"];

describe("CQL2: the standard's examples", () => {
  const pairs = texts
    .map((f) => f.replace(/\.txt$/, ""))
    .map((name) => [name, name.replace(/-alt\d+$/, "")] as const)
    .filter(([, json]) => jsons.includes(`${json}.json`));

  it("has the examples", () => {
    expect(pairs.length).toBeGreaterThan(100);
  });

  it.each(pairs)("%s: the text and the JSON (%s) parse to the same tree", (text, json) => {
    const t = read(`examples/text/${text}.txt`).trim();
    const j = read(`examples/json/${json}.json`);
    if (FUNCTIONS.includes(json)) {
      expect(() => parseCql2(t)).toThrow(/unknown function|geometry/);
      expect(() => parseCql2Json(j)).toThrow(/unknown operator|functions are not served|expected/);
      return;
    }
    expect(parseCql2(t)).toEqual(parseCql2Json(j));
  });

  it("every JSON example is valid against cql2.json", () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    const validate = ajv.compile(JSON.parse(read("cql2.json")));
    for (const file of jsons) {
      const ok = validate(JSON.parse(read(`examples/json/${file}`)));
      expect(ok, `${file}: ${JSON.stringify(validate.errors?.slice(0, 3))}`).toBe(true);
    }
  });
});
