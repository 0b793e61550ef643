import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { chainParam } from "../../lib/sync/params.js";
import { enabledChainNames } from "../../lib/sync/service.js";

// The sync routes' chain list is read by the lists' own chain grammar (lib/params/grammar.ts, chainListParam): any
// case, spaces around a name, and a message that names the enabled chains.
describe("the sync routes' chain parameter", () => {
  const names = enabledChainNames();

  it("takes enabled chains in any case, with spaces around them", () => {
    expect(names.length).toBeGreaterThan(0);
    const raw = names.map((n, i) => (i % 2 ? ` ${n.toUpperCase()} ` : n)).join(",");
    expect(v.parse(chainParam(), raw)).toEqual(names);
    expect(v.parse(chainParam(), undefined)).toBeUndefined();
  });

  it("refuses an unknown or empty name, naming the enabled chains", () => {
    for (const bad of ["atlantis", `${names[0]},atlantis`, "", `${names[0]},`]) {
      const result = v.safeParse(chainParam(), bad);
      expect(result.success, bad).toBe(false);
      expect(result.issues?.[0]?.message).toBe(
        `chain must be one or more of the enabled chains: ${names.join(", ")}`,
      );
    }
  });
});
