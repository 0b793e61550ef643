import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHAIN_DEFINITIONS } from "../../lib/chains/registry.js";
import { insertProofs, sampleProofs } from "../../lib/local/sample-proofs.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

/**
 * Every text and choice that names networks comes from the registry and CHAINS: the home page's sentence and its
 * table, the map's chain chips and the list's chain filter, /health and /api/v0/config. Two configurations, so that
 * a list typed anywhere fails one of them.
 */
const rows = sampleProofs({ count: 20, seed: 3 });
const display = (name: string) => CHAIN_DEFINITIONS.find((c) => c.name === name)!.displayName;
const HTML = { accept: "text/html" };

describe.each([
  ["zksync,telos,mainnet", ["mainnet", "telos", "zksync"]],
  ["devnet,scroll", ["scroll", "devnet"]],
])("CHAINS=%s", (chains, synced) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({ CHAINS: chains });
    await insertProofs(app.db, rows);
  });
  afterAll(() => app?.close());

  it("the home page names the synced networks and lists each in its table", async () => {
    const html = await (await app.request("/", { headers: HTML })).text();
    const names = synced.map(display);
    const words = `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
    expect(html).toContain(`indexed from ${words}.`);
    expect(html).not.toContain("Arbitrum, Base, Celo and Sepolia");
    for (const name of names) expect(html).toContain(`<tr><td>${name}</td>`);
  });

  it("the map's chips and the list's chain filter offer the synced networks, no others", async () => {
    const map = await (
      await app.request("/api/ogc/collections/location-proofs/items?f=html", { headers: HTML })
    ).text();
    const chips = [...map.matchAll(/[?&]amp;chain=([a-z0-9-]+)|[?]chain=([a-z0-9-]+)/g)].map(
      (m) => m[1] ?? m[2],
    );
    expect([...new Set(chips)]).toEqual(synced);
    for (const name of synced) expect(map).toContain(`>${display(name)}</a>`);
    const list = await (await app.request("/api/v0/location-proofs", { headers: HTML })).text();
    const facet = /<li><span class="muted">Chain<\/span>(.*?)<\/li>/s.exec(list)?.[1] ?? "";
    expect([...facet.matchAll(/chain=([a-z0-9-]+)/g)].map((m) => m[1])).toEqual(synced);
  });

  it("/health and /api/v0/config list every synced network", async () => {
    const health = await app.get("/health");
    expect(health.body.checks.sync.chains.map((c: { chain: string }) => c.chain)).toEqual(synced);
    const config = await app.get("/api/v0/config");
    const enabled = config.body.chains.filter((c: { enabled: boolean }) => c.enabled);
    expect(enabled.map((c: { name: string }) => c.name)).toEqual(synced);
  });
});
