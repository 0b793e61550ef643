/**
 * A request's URL, parsed once: routing, the query parser, format negotiation, every link and the log line read
 * it, and each `new URL(request.url)` was a full parse (a few µs, several times a request). Shared, so never
 * modified: build a new URL from it to change anything.
 */
const parsed = new WeakMap<Request, URL>();

export function requestUrl(request: Request): Readonly<URL> {
  let url = parsed.get(request);
  if (!url) {
    url = new URL(request.url);
    parsed.set(request, url);
  }
  return url;
}
