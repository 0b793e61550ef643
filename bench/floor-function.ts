// The function floor for bench:scale: the floor (bench/floor-replay.ts) as a function in the Web `GET(request)`
// signature the stack fixes, built into an output of its own and served like the service's functions (the same
// Vercel emulation, scripts/vercel-output/server.ts). It does nothing a function could leave out: what it
// costs beyond the bare floor is what the signature and the platform's Request/Response costs; what the service
// costs beyond it is the service's own work. `PUT` with `{ statements, body }` (body base64) sets what GETs do.
import { streamOf } from "../lib/http/respond.js";
import { floorReplayer } from "./floor-replay.js";

const floor = floorReplayer(process.env.DATABASE_URL);

export async function PUT(request: Request): Promise<Response> {
  floor.set(await request.text());
  return new Response(null, { status: 204 });
}

export async function GET(): Promise<Response> {
  const body = await floor.replay();
  // As the service hands its bodies over (lib/http/respond.ts): a stream of the one buffer, with its length.
  return new Response(streamOf(body), {
    status: 200,
    headers: { "content-type": "application/json", "content-length": String(body.length) },
  });
}
