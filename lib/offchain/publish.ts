import { getDb } from "../../db/client.js";
import { getConfig } from "../config.js";
import { readJsonBody, readTextBody } from "../http/body.js";
import { ApiError } from "../http/errors.js";
import { baseUrl } from "../http/links.js";
import { json } from "../http/respond.js";
import { log } from "../log.js";
import { readPublication } from "./formats.js";
import { countPublication } from "./limits.js";
import { findOffchain, serializeOffchain } from "./records.js";
import { publishSettings } from "./settings.js";
import { offchainRow, storeRecord } from "./store.js";
import { checkTimes, checkUid, locationSchemaOf, networkOf, recoverAttester, refused } from "./verify.js";

/**
 * POST /api/v0/location-records: publishes one signed off-chain attestation (lib/offchain/formats.ts lists the
 * shapes). Nothing is stored before every check has passed, in this order: the publishing mode; the body (size,
 * shape); the domain is a configured network's EAS; the signature recovers the attester (the package's signer,
 * when it names one); the uid is the message's; the attester may publish (allowlist) and has not published too
 * much; the schema is a location schema indexed on that network; the time is not in the future beyond the skew and
 * the attestation has not expired; its data decodes. 201 with the record; 200 with the record already held.
 */
export async function publish(request: Request): Promise<Response> {
  const config = getConfig();
  const settings = publishSettings(config);
  if (settings.mode === "off")
    throw new ApiError(
      403,
      "PublishingDisabled",
      "This deployment does not take publications (PUBLISH_MODE=off)",
    );
  const started = performance.now();
  const body = await readBody(request, settings.maxBytes);
  const signed = readPublication(body);
  const network = networkOf(config, signed);
  const attester = await recoverAttester(signed);
  checkUid(signed);
  const verifiedMs = performance.now() - started;
  if (settings.mode === "allowlist" && !settings.attesters.has(attester.toLowerCase())) {
    throw new ApiError(
      403,
      "AttesterNotAllowed",
      `${attester} is not among the attesters this deployment takes`,
      {
        parameter: "signer",
      },
    );
  }
  await countPublication(config, settings, request, attester);
  const db = await getDb();
  const schema = await locationSchemaOf(db, config, network, signed.message.schema);
  try {
    checkTimes(signed, settings.maxSkewSeconds);
  } catch (error) {
    // Already held: answered as such, whatever the clock says now (it was valid when it was published). Looked up
    // only here, so a new record costs one statement, its insert.
    const held = await findOffchain(db, signed.uid.toLowerCase(), network.chainId);
    if (held && held.prover === attester.toLowerCase())
      return json(serializeOffchain(held, baseUrl(request)), { status: 200 });
    throw error;
  }
  const row = offchainRow(network, schema, signed, attester);
  if (row.decodeError)
    throw refused(
      "UndecodableData",
      `The data does not decode against its schema: ${row.decodeError}`,
      "message.data",
    );
  const stored = await storeRecord(db, row);
  log("info", "offchain publication", {
    uid: stored.row.uid,
    chain: network.name,
    attester: stored.row.prover,
    created: stored.created,
    verify_ms: Math.round(verifiedMs * 10) / 10,
    total_ms: Math.round((performance.now() - started) * 10) / 10,
  });
  return json(serializeOffchain(stored.row, baseUrl(request)), { status: stored.created ? 201 : 200 });
}

/** The body: JSON (any of the shapes), or a text/plain body holding the zipped package or its link. */
async function readBody(request: Request, maxBytes: number): Promise<unknown> {
  const type = request.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (type === "text/plain") {
    const text = await readTextBody(request, maxBytes);
    return text.trim();
  }
  if (type !== undefined && type !== "application/json" && !type.endsWith("+json"))
    throw new ApiError(
      415,
      "UnsupportedMediaType",
      "Send application/json (or text/plain for a zipped package)",
    );
  return readJsonBody(request, { maxBytes, required: true });
}
