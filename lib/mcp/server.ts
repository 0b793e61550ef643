import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { ApiError } from "../http/errors.js";
import { errorFields, log } from "../log.js";
import { SERVICE_NAME, VERSION } from "../version.js";
import { TOOLS } from "./tools.js";

/** Largest JSON-RPC request body taken (a tool call's arguments are small). */
const MAX_BODY_BYTES = 64 * 1024;

/**
 * One MCP exchange over Streamable HTTP in stateless mode: a server and a transport per request (no session, nothing
 * kept between invocations, as a serverless function needs), answering plain JSON rather than an event stream. The
 * low-level server of the official SDK, because the tools' schemas are JSON Schema written here, not zod.
 */
export async function mcpResponse(request: Request): Promise<Response> {
  const server = new Server(
    { name: SERVICE_NAME, version: VERSION },
    {
      capabilities: { tools: {} },
      instructions:
        "Query EAS location proofs: search_location_proofs (filters, cursor paging), get_location_proof by uid, location_proof_statistics, list_networks (chains and schemas).",
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: TOOLS.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema() as never,
      outputSchema: t.outputSchema() as never,
      annotations: { readOnlyHint: true, openWorldHint: false },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
    const tool = TOOLS.find((t) => t.name === params.name);
    if (!tool) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown tool '${params.name}'. Tools: ${TOOLS.map((t) => t.name).join(", ")}`,
      );
    }
    return callTool(() => tool.run(params.arguments, request));
  });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: MAX_BODY_BYTES,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request);
  } finally {
    await server.close();
  }
}

/**
 * A tool's answer as MCP content: structured, and a short text. An ApiError (a bad argument, a proof not found, the
 * database unavailable) is a tool error carrying its message, so the agent can correct its call; anything else is a
 * tool error that says no more than the native API's 500 does (the details go to the log).
 */
async function callTool(
  run: () => Promise<{ structured: Record<string, unknown>; text: string }>,
): Promise<CallToolResult> {
  try {
    const { structured, text } = await run();
    return { structuredContent: structured, content: [{ type: "text", text }] };
  } catch (error) {
    if (error instanceof ApiError) {
      return { isError: true, content: [{ type: "text", text: error.message }] };
    }
    log("error", "mcp: tool failed", { error: errorFields(error) });
    return { isError: true, content: [{ type: "text", text: "Internal error: the tool could not answer." }] };
  }
}
