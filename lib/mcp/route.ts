import type { RouteDeclaration } from "../http/route.js";
import { mcpResponse } from "./server.js";

/**
 * POST /mcp (vercel.json rewrite onto api/mcp.ts): the MCP endpoint, public and rate limited like every public route
 * (lib/http/route.ts), never cached. No GET: a stateless server offers no event stream, and the platform answers 405
 * with Allow, which the protocol expects then.
 */
export const MCP_ROUTE: RouteDeclaration = {
  access: "public",
  cache: false,
  POST: mcpResponse,
};
