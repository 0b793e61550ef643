// graphql-js's ES module build (index.mjs) has the same exports as its CommonJS main, whose types these are. The
// GraphQL modules import it by that name: the function bundler (esbuild, platform node) would otherwise take the
// CommonJS main, which it cannot tree-shake, and ship every module of graphql-js in the function.
declare module "graphql/index.mjs" {
  export * from "graphql";
}
