import { route } from "../../../../lib/http/route.js";
import { SIGNED_ROUTE } from "../../../../lib/offchain/signed-route.js";

// GET /api/v0/location-records/{uid}/signed (vercel.json rewrite): an off-chain record's signed original.
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({ ...SIGNED_ROUTE });
