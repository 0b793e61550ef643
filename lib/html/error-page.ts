import { escapeHtml as e } from "./escape.js";
import { contentSecurityPolicy, page, SITE_PATHS } from "./layout.js";

/**
 * An error response as a page, for a browser that asked for HTML (route() decides: lib/http/route.ts). The status,
 * the headers (Allow, Retry-After, WWW-Authenticate, no-store) and the message are the JSON error's, unchanged;
 * only the body becomes a page with a way home.
 */
export async function htmlErrorResponse(response: Response): Promise<Response> {
  const body = (await response.json().catch(() => ({}))) as {
    error?: string;
    message?: string;
    parameter?: string;
  };
  const title = body.error ?? "Error";
  const retry = response.headers.get("retry-after");
  const html = page({
    title,
    body: `<div class="error-page">
<p class="status">HTTP ${response.status}</p>
<p class="message">${e(body.message ?? title)}</p>
${body.parameter ? `<p>The query parameter at fault: <code>${e(body.parameter)}</code>.</p>` : ""}
${retry ? `<p>Please retry in ${e(retry)} seconds.</p>` : ""}
<div class="actions"><a class="button primary" href="${SITE_PATHS.home}">Go to the home page</a><a class="button" href="${SITE_PATHS.map}">Open the map</a></div>
</div>`,
  });
  const headers = new Headers(response.headers);
  headers.set("content-type", "text/html; charset=utf-8");
  headers.set("content-security-policy", contentSecurityPolicy());
  const bytes = Buffer.from(html, "utf8");
  headers.set("content-length", String(bytes.length));
  return new Response(bytes, { status: response.status, statusText: response.statusText, headers });
}
