import { getConfig } from "../config.js";

/**
 * The absolute base URL every link is built from: PUBLIC_BASE_URL when configured, else the forwarded headers a
 * proxy or the platform sets, else the request's own origin.
 */
export function baseUrl(request: Request): string {
  const configured = getConfig().publicBaseUrl;
  if (configured) return configured;
  const url = new URL(request.url);
  const host = firstValue(request.headers.get("x-forwarded-host")) ?? request.headers.get("host") ?? url.host;
  const proto = firstValue(request.headers.get("x-forwarded-proto")) ?? url.protocol.replace(/:$/, "");
  // Only plain host[:port] values are accepted, so a forged header cannot inject a path or scheme into links.
  const safeHost = /^[A-Za-z0-9.\-[\]:]+$/.test(host) ? host : url.host;
  const safeProto = proto === "http" || proto === "https" ? proto : url.protocol.replace(/:$/, "");
  return `${safeProto}://${safeHost}`;
}

const firstValue = (header: string | null): string | undefined => header?.split(",")[0]?.trim() || undefined;

/** An absolute URL for `path` with the given query parameters (undefined values are left out). */
export function absoluteUrl(
  request: Request,
  path: string,
  params: Record<string, string | number | undefined> = {},
): string {
  const url = new URL(path, `${baseUrl(request)}/`);
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined) url.searchParams.set(key, String(value));
  }
  return url.toString();
}
