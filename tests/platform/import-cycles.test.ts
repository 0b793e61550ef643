import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/app.js";

/**
 * No module of lib/ or db/ imports itself through others, type-only imports included (they are erased at run time,
 * but a cycle through them still ties the modules' designs together). A cycle of value imports makes the load order
 * decide which module sees the other half-initialised, and keeps a route from loading only what it serves.
 */
function modules(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return modules(full);
    return full.endsWith(".ts") && !full.endsWith(".d.ts") ? [full] : [];
  });
}

/** Relative imports and re-exports of a module, as absolute .ts paths. */
function imports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const found: string[] = [];
  const statement = /^(?:import|export)\s+(?:[^'";]*?\sfrom\s+)?["'](\.[^"']+)["']/gm;
  for (const m of text.matchAll(statement)) found.push(resolve(dirname(file), m[1]!.replace(/\.js$/, ".ts")));
  return found;
}

function cycles(files: string[]): string[][] {
  const graph = new Map(files.map((f) => [f, imports(f).filter((i) => files.includes(i))]));
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (f: string) => {
    state.set(f, "open");
    stack.push(f);
    for (const next of graph.get(f) ?? []) {
      if (state.get(next) === "open") found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(f, "done");
  };
  for (const f of files) if (!state.has(f)) visit(f);
  return found.map((c) => c.map((f) => relative(ROOT, f)));
}

describe("imports", () => {
  const files = [...modules(join(ROOT, "lib")), ...modules(join(ROOT, "db"))];

  it("finds cycles, through type-only imports too (the check can fail)", () => {
    const dir = mkdtempSync(join(tmpdir(), "cycles-"));
    const write = (name: string, text: string) => writeFileSync(join(dir, name), text);
    write("a.ts", 'import { b } from "./b.js";\nexport const a = b;\n');
    write("b.ts", 'import {\n  c,\n} from "./c.js";\nexport const b = c;\n');
    write("c.ts", 'export { d as c } from "./d.js";\n');
    write("d.ts", 'import { a } from "./a.js";\nexport const d = 1;\n');
    write("e.ts", 'import type { F } from "./f.js";\nexport type E = F;\n');
    write("f.ts", 'import type { E } from "./e.js";\nexport type F = E;\n');
    write("g.ts", 'import { a } from "./a.js";\nexport const g = a;\n');
    const found = cycles(["a.ts", "b.ts", "c.ts", "d.ts", "e.ts", "f.ts", "g.ts"].map((f) => join(dir, f)));
    expect(found.map((c) => c.map((f) => f.split("/").pop()))).toEqual([
      ["a.ts", "b.ts", "c.ts", "d.ts", "a.ts"],
      ["e.ts", "f.ts", "e.ts"],
    ]);
    expect(imports(join(ROOT, "lib/ogc/items.ts")).map((f) => relative(ROOT, f))).toContain(
      "lib/proofs/query.ts",
    );
  });

  it("has no cycle among the modules of lib/ and db/", () => {
    expect(cycles(files)).toEqual([]);
  });
});
