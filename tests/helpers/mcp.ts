import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect } from "vitest";

/** The official SDK's client, connected to `<base>/mcp` (over real HTTP), with extra request headers. */
export async function mcpClient(base: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "lpqs-tests", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("/mcp", base), { requestInit: { headers } }),
  );
  return client;
}

type Native = (path: string) => Promise<{ status: number; body: any }>;

/** The structured answer of a tool call that must succeed. */
async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError, `${name} ${JSON.stringify(args)}: ${JSON.stringify(result.content)}`).toBeFalsy();
  const text = (result.content as { type: string; text: string }[])[0];
  expect(text?.type).toBe("text");
  expect(text!.text.length).toBeLessThan(300);
  return result.structuredContent as any;
}

/** The cursor a native next/prev link carries. */
const cursorOf = (link: string | null) => (link ? new URL(link).searchParams.get("cursor") : null);

/**
 * Lists the tools and calls each, comparing every answer with the native API's answer to the same question
 * (`native` GETs a path on the same deployment), bad arguments included. Returns the number of comparisons.
 */
export async function compareWithNative(client: Client, native: Native): Promise<number> {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual([
    "get_location_proof",
    "list_networks",
    "location_proof_statistics",
    "search_location_proofs",
  ]);
  for (const tool of tools) {
    expect(tool.inputSchema.type, tool.name).toBe("object");
    expect(tool.outputSchema?.type, tool.name).toBe("object");
  }
  let compared = 0;
  const searches: [Record<string, unknown>, string][] = [
    [{}, "limit=10"],
    [{ limit: 5 }, "limit=5"],
    [{ chain: ["sepolia"], includeRevoked: true, limit: 3 }, "chain=sepolia&includeRevoked=true&limit=3"],
    [
      { near: [2.35, 48.85], radius: 3_000_000, sort: "distance", limit: 4 },
      "near=2.35,48.85&radius=3000000&sort=distance&limit=4",
    ],
    [
      { bbox: [-20, -60, 60, 70], fromTimestamp: "2020-01-01", hasCoordinates: true, limit: 4 },
      "bbox=-20,-60,60,70&fromTimestamp=2020-01-01&filter=hasCoordinates&limit=4",
    ],
    [
      { protocolVersion: ["0.1"], locationType: ["coordinate-decimal+lon-lat"], limit: 2 },
      "protocolVersion=0.1&locationType=coordinate-decimal%2Blon-lat&limit=2",
    ],
  ];
  let someUid: string | undefined;
  for (const [args, query] of searches) {
    const mine = await call(client, "search_location_proofs", args);
    const theirs = await native(`/api/v0/location-proofs?${query}`);
    expect(theirs.status, query).toBe(200);
    expect(mine.data, query).toEqual(theirs.body.data);
    expect(mine.pagination, query).toEqual({
      total: theirs.body.pagination.total,
      limit: theirs.body.pagination.limit,
      returned: theirs.body.pagination.returned,
      next_cursor: cursorOf(theirs.body.pagination.next),
      prev_cursor: cursorOf(theirs.body.pagination.prev),
    });
    compared++;
    someUid ??= mine.data[0]?.uid;
    // The cursor continues as the native next link does.
    if (mine.pagination.next_cursor) {
      const next = await call(client, "search_location_proofs", {
        ...args,
        cursor: mine.pagination.next_cursor,
      });
      const nativeNext = await native(
        new URL(theirs.body.pagination.next).pathname + new URL(theirs.body.pagination.next).search,
      );
      expect(next.data, `${query} (next page)`).toEqual(nativeNext.body.data);
      compared++;
    }
  }
  expect(someUid).toBeDefined();
  expect(await call(client, "get_location_proof", { uid: someUid })).toEqual(
    (await native(`/api/v0/location-proofs/${someUid}`)).body,
  );
  for (const [args, query] of [
    [{}, ""],
    [{ protocolVersion: ["0.1"] }, "?protocolVersion=0.1"],
  ] as const) {
    expect(await call(client, "location_proof_statistics", args)).toEqual(
      (await native(`/api/v0/location-proofs/stats${query}`)).body,
    );
  }
  expect(await call(client, "list_networks", {})).toEqual((await native("/api/v0/config")).body);
  compared += 4;

  // Bad arguments: a tool error that says what is wrong, as the native 400 does.
  const refusals: [string, Record<string, unknown>, RegExp, string?][] = [
    ["search_location_proofs", { limit: 500 }, /limit must be at most 50/],
    ["search_location_proofs", { near: [2, 48] }, /radius/, "near=2,48"],
    ["search_location_proofs", { chain: ["nowhere"] }, /chain must be one or more of/, "chain=nowhere"],
    ["search_location_proofs", { bbox: [1, 2, 3] }, /bbox/, "bbox=1,2,3"],
    ["search_location_proofs", { bogus: 1 }, /Unknown argument 'bogus'/],
    ["search_location_proofs", { prover: 12 }, /prover must be a string/],
    ["search_location_proofs", { cursor: "%%%" }, /cursor/, "cursor=%25%25%25"],
    ["get_location_proof", { uid: "0x12" }, /uid must be a 0x-prefixed 32-byte hex string/],
    ["get_location_proof", {}, /uid is required/],
    ["get_location_proof", { uid: `0x${"0".repeat(64)}` }, /No location proof with uid/],
    ["location_proof_statistics", { schema: ["0x1"] }, /schema/, "schema=0x1"],
    ["list_networks", { chain: "x" }, /Unknown argument 'chain'/],
  ];
  for (const [name, args, message, query] of refusals) {
    const result = await client.callTool({ name, arguments: args });
    expect(result.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
    const text = (result.content as { text: string }[])[0]!.text;
    expect(text).toMatch(message);
    if (query) {
      const path =
        name === "location_proof_statistics" ? "/api/v0/location-proofs/stats" : "/api/v0/location-proofs";
      const theirs = await native(`${path}?${query}`);
      expect(theirs.status, query).toBe(400);
      expect(text, query).toBe(theirs.body.message);
    }
    compared++;
  }
  return compared;
}
