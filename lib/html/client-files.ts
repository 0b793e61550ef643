/*
 * The pages' own scripts and styles as served (site.js, map.js, tile-map.mjs, site.css), bundled from their sources
 * in lib/html/client/ (lib/html/client-build.ts). In a deployed function this module is replaced by one that holds
 * the texts the build bundled (scripts/build.ts, clientFilesModule), so the function reads no file and carries no
 * bundler; in the dev server and the tests they are bundled here, once per process, on first use.
 */

export const CLIENT_FILE_NAMES = ["site.js", "map.js", "tile-map.mjs", "site.css"] as const;
export type ClientFileName = (typeof CLIENT_FILE_NAMES)[number];

let bundled: Promise<Record<ClientFileName, string>> | undefined;

export async function clientFile(name: ClientFileName): Promise<string> {
  bundled ??= import("./client-build.js")
    .then((b) => b.bundleClientFiles())
    .catch((error) => {
      bundled = undefined; // a source fixed since is bundled on the next request
      throw error;
    });
  return (await bundled)[name];
}
