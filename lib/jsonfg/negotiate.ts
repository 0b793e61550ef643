import * as v from "valibot";
import { EXPORT_F_VALUES } from "../exports/formats.js";
import { type Format, negotiateFormat } from "../http/format.js";
import { LEGACY_MEDIA, PROFILE_NAMES, PROFILES, type ProfileName } from "./vocabulary.js";

/**
 * The encodings of the feature resources (items and single items): GeoJSON, JSON-FG (GeoJSON in the JSON-FG
 * profile) and the HTML page. `f=jsonfg` or `profile=jsonfg` (or `jsonfg-plus`) asks for JSON-FG; so does an Accept
 * header naming a JSON-FG media type of the drafts or GeoJSON with a JSON-FG profile parameter.
 */

export const FEATURE_FORMATS = ["json", "html", "jsonfg"] as const;
export type FeatureFormat = (typeof FEATURE_FORMATS)[number];

export const featureFormatParam = v.picklist(FEATURE_FORMATS, `f must be ${FEATURE_FORMATS.join(", ")}`);
/** The items also take the download formats (lib/exports/), which the items resource answers before any page. */
const ITEMS_FORMATS = [...FEATURE_FORMATS, ...EXPORT_F_VALUES];
export const itemsFormatParam = v.picklist(ITEMS_FORMATS, `f must be one of ${ITEMS_FORMATS.join(", ")}`);
export const profileParam = v.picklist(PROFILE_NAMES, `profile must be ${PROFILE_NAMES.join(", ")}`);

export type FeatureEncoding = { format: Format; jsonfg: boolean };

/** Whether an Accept header asks for JSON-FG: a draft media type, or a profile parameter naming JSON-FG. */
function acceptsJsonFg(request: Request): boolean {
  const accept = (request.headers.get("accept") ?? "").toLowerCase();
  if (LEGACY_MEDIA.some((type) => accept.includes(type))) return true;
  return (
    accept.includes(PROFILES.jsonfg) ||
    accept.includes(`profile="jsonfg`) ||
    accept.includes("profile=jsonfg")
  );
}

export function featureEncoding(
  request: Request,
  f: string | undefined,
  profile: ProfileName | undefined,
): FeatureEncoding {
  if (f === "jsonfg") return { format: "json", jsonfg: true };
  const format = negotiateFormat(request, f);
  if (format === "html") return { format, jsonfg: false };
  if (profile) return { format, jsonfg: profile !== "rfc7946" };
  return { format, jsonfg: f === undefined && acceptsJsonFg(request) };
}
