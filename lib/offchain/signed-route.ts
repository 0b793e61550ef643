import { getDb } from "../../db/client.js";
import { notFound } from "../http/errors.js";
import { textResponse } from "../http/respond.js";
import type { RouteDeclaration } from "../http/route.js";
import { pathUid } from "../params/path-uid.js";
import { findOffchain } from "./records.js";

/**
 * GET an off-chain record's signed original, as the EAS SDK's shareable package `{ sig, signer }` (JSON, big
 * integers as decimal strings): anyone can check the signature with the SDK or any EIP-712 library, without
 * trusting this service.
 */
export const SIGNED_ROUTE: RouteDeclaration = {
  access: "public",
  GET: async (request) => {
    const uid = pathUid(request);
    const row = await findOffchain(await getDb(), uid);
    if (!row) throw notFound(`No off-chain location record with uid ${uid}`);
    return textResponse(row.signed, {
      contentType: "application/json; charset=utf-8",
      headers: { "content-disposition": `attachment; filename="${row.uid}.json"` },
    });
  },
};
