/** Where the native API's OpenAPI document and its rendering live (a module of its own: pages import it cheaply). */
export const OPENAPI_PATH = "/api/v0/openapi.json";
export const DOCS_PATH = "/docs";
