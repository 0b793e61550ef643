// A real server process for tests that need more than one (e.g. two instances sharing one rate limit in Redis):
// the router over node:http through the dev server's own serve(), which sets x-real-ip from the socket as the
// platform does. Configuration comes from the environment; it needs no database for /api/v0/config.
// Prints one JSON line `{"url": ...}` when listening; exits on SIGTERM or when its parent's stdin closes.
import { fileURLToPath } from "node:url";
import { getConfig } from "../../lib/config.js";
import { serve } from "../../lib/local/http-server.js";
import { createRouter } from "../../lib/local/router.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

getConfig();
const { server, url } = await serve(createRouter(ROOT), 0);
process.stdout.write(`${JSON.stringify({ url })}\n`);
const stop = () => {
  server.close();
  process.exit(0);
};
process.on("SIGTERM", stop);
process.stdin.on("end", stop);
process.stdin.resume();
