import { route } from "../lib/http/route.js";
import { MCP_ROUTE } from "../lib/mcp/route.js";

// /mcp (vercel.json rewrite): the Model Context Protocol over Streamable HTTP, stateless (lib/mcp/).
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({ ...MCP_ROUTE });
