import { afterAll, expect } from "vitest";
import { checkRecorded } from "./contract.js";

// Every test file: the exchanges it made through the router keep to the API documents (tests/helpers/contract.ts).
afterAll(async () => {
  const { problems } = await checkRecorded();
  expect(problems, "responses that the OpenAPI documents do not describe").toEqual([]);
});
