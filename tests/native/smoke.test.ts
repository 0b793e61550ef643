import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertProofs, sampleProofs } from "../../lib/local/sample-proofs.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
  await insertProofs(app.db, sampleProofs({ count: 50, seed: 7 }));
});
afterAll(() => app.close());

describe("smoke", () => {
  it("lists proofs", async () => {
    const res = await app.get("/api/v0/location-proofs?limit=5");
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(5);
    expect(res.body.pagination.total).toBeGreaterThan(40);
  });
  it("404s a wrong version", async () => {
    const res = await app.get("/api/v1/location-proofs");
    expect(res.status).toBe(404);
    expect(res.body.message).toBe("Cannot GET /api/v1/location-proofs");
  });
});
