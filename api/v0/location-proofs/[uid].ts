import { route } from "../../../lib/http/route.js";
import { PROOF_ROUTE } from "../../../lib/v0/proof-route.js";

// GET /api/v0/location-proofs/{uid} (vercel.json rewrite).
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({ ...PROOF_ROUTE });
