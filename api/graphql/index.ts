import { GRAPHQL_ROUTE } from "../../lib/graphql/route.js";
import { route } from "../../lib/http/route.js";

// /graphql (vercel.json rewrite): GraphQL over HTTP, GET and POST; GraphiQL for a browser (lib/graphql/).
export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({ ...GRAPHQL_ROUTE });
