import { route } from "../../../lib/http/route.js";
import { LIST_ROUTE } from "../../../lib/v0/list-route.js";

// GET /api/v0/location-records: the name Astral's documentation gives the list; its twin's declaration, links keeping this path.
// POST: publishes a signed off-chain attestation (lib/offchain/publish.ts); only here, the name records are published under.
// Loaded when the first POST comes: verifying needs viem and the location decoder, which the list's reads never load.
// The import's promise is kept: an import() per request resolves the module again each time.
let publishing: Promise<typeof import("../../../lib/offchain/publish.js")> | undefined;
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  ...LIST_ROUTE,
  POST: async (request: Request) => {
    publishing ??= import("../../../lib/offchain/publish.js");
    return (await publishing).publish(request);
  },
});
