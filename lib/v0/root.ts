import { getDb } from "../../db/client.js";
import { syncedNetworks } from "../chains/registry.js";
import { getConfig } from "../config.js";
import { homePage } from "../html/home-page.js";
import { htmlResponse } from "../html/layout.js";
import type { Format } from "../http/format.js";
import { json } from "../http/respond.js";
import { errorFields, log } from "../log.js";
import { proofStats } from "../proofs/stats.js";
import { rootInfo } from "./service-info.js";

/**
 * GET /: the service's name, version and links as JSON (no database needed), or, for a browser, the home page with
 * live counts. Without a database the page still renders and says the counts are unavailable: the way to the
 * docs and the API stays open.
 */
export async function rootResource(request: Request, format: Format): Promise<Response> {
  const info = rootInfo(request);
  if (format === "json") return json(info);
  const stats = await (async () => proofStats(await getDb()))().catch((error: unknown) => {
    log("warn", "home page: counts unavailable", { error: errorFields(error) });
    return undefined;
  });
  return htmlResponse(homePage(info, stats, syncedNetworks(getConfig())));
}
