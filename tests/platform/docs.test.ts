import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHAIN_NAMES } from "../../lib/chains/registry.js";
import { loadConfig, setConfig } from "../../lib/config.js";
import { allowedMethodsOf } from "../../lib/http/route.js";
import { ROOT } from "../helpers/app.js";
import { type ApiRoute, apiRoutes } from "../helpers/routes.js";

/**
 * The docs (README.md and every docs/*.md, whoever wrote them) and the code in step. Everything on the code's side
 * is derived from the code itself, never from a list kept here:
 * - endpoints: the api/ tree and the vercel.json rewrites onto it (tests/helpers/routes.ts);
 * - query parameters: what each route accepts, asked of the route itself (a request with an unknown parameter is a
 *   400 that lists the allowed ones, before the handler does anything else: the probe is harmless), plus its path
 *   segments;
 * - environment variables: the keys of lib/config.ts's schema, every `process.env.X` read in the code, the per-chain
 *   ones (`RPC_URL_${key}` …) for each chain of the registry, and the variables the repository's shell scripts set;
 * - npm scripts: package.json.
 * Named in a doc and missing in the code is a failure; so is an endpoint or a variable read by the service (lib/,
 * db/, api/, scripts/) that no doc names. Each failure names the doc file and line, or the code file.
 *
 * What counts as naming something in a doc:
 * - an endpoint: a path starting with one of the routes' first segments (`/api/…`, `/health`, `/docs`), in prose,
 *   code or a URL (`https://<host>/api/ogc`); `{id}`, `:uid` and `<uid>` are placeholders (`{a|b}` lists the
 *   values); a path followed by `*` or `…`, or ending in `/`, is a prefix of paths; `GET /` and `` `/` `` name the
 *   root;
 * - a query parameter: a key in a path's query string (checked against that route), `--data-urlencode 'key=…'`,
 *   a backticked `key=value` in prose, or the first cell of a table whose first column is headed "Parameter";
 * - an environment variable: an UPPER_SNAKE name anywhere (`RPC_URL_<CHAIN>` with a placeholder), `NAME=value`,
 *   or the first cell of a table whose first column is headed "Variable". An UPPER_SNAKE name that is no variable
 *   passes when the code names it otherwise (a constant such as MAINTENANCE_BUDGETS, CQL2's S_INTERSECTS);
 * - an npm script: `npm run <name>`, `npm test`, `npm start`.
 * Relative links between the docs must lead to an existing file, and to an existing heading when they name one.
 */

type Doc = { file: string; text: string };

type Endpoint = {
  /** the path as a doc should name it, placeholders in braces */
  label: string;
  file: string;
  /** the paths that reach it: its own, and a static vercel.json rewrite onto it */
  paths: string[][];
  /** the query parameters it accepts, or undefined when it did not say (no UnknownParameter answer) */
  params: Set<string> | undefined;
};

type Facts = {
  endpoints: Endpoint[];
  /** the first segment of every endpoint path: what a doc path must start with to be an endpoint */
  prefixes: string[];
  /** every variable the code reads or a script sets, and where (a file) */
  envVars: Map<string, string>;
  /** the variables the service reads (lib/, db/, api/, scripts/, lib/config.ts): each must be documented */
  envDocumented: Map<string, string>;
  /** per-chain variables: prefix (`RPC_URL_`) → the file that reads it */
  envTemplates: Map<string, string>;
  /** the chain keys a per-chain variable takes (`SEPOLIA`) */
  chainKeys: Set<string>;
  /** every identifier in the code, upper-cased */
  codeWords: Set<string>;
  scripts: Set<string>;
};

const UNKNOWN_PARAMETER_PROBE = "docs-test-probe";
const SECRET = "docs-test-secret";

/** Every file under `dir` (relative to the root) whose name ends in one of `extensions`. */
function filesUnder(dir: string, extensions: readonly string[]): string[] {
  let names: string[];
  try {
    names = readdirSync(join(ROOT, dir), { recursive: true }) as string[];
  } catch {
    return [];
  }
  return names
    .filter((n) => extensions.some((e) => n.endsWith(e)) && !n.split("/").includes("node_modules"))
    .map((n) => join(dir, n))
    .sort();
}

const read = (file: string) => readFileSync(join(ROOT, file), "utf8");

function readDocs(): Doc[] {
  const docs = readdirSync(join(ROOT, "docs"))
    .filter((n) => n.endsWith(".md"))
    .sort()
    .map((n) => `docs/${n}`);
  return ["README.md", ...docs].map((file) => ({ file, text: read(file) }));
}

const THIS_FILE = "tests/platform/docs.test.ts";
const SERVICE_DIRS = ["lib", "db", "api", "scripts"];
const OTHER_CODE_DIRS = ["bench", "tests"];
const ENV_READ = /process\.env(?:\.([A-Z_][A-Z0-9_]*)|\[\s*["'`]([A-Z_][A-Z0-9_]*)["'`]\s*\])/g;
const ENV_TEMPLATE = /`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_)\$\{[^}`]+\}/g;

/**
 * The parameters a route accepts (over all its methods), from its own answer to a parameter it does not know; undefined
 * when no method answers so.
 */
async function acceptedParameters(route: ApiRoute): Promise<Set<string> | undefined> {
  const mod = (await import(route.route.file)) as Record<string, (r: Request) => Promise<Response>>;
  const methods = (allowedMethodsOf(mod) ?? []).filter((m) => m !== "HEAD" && m !== "OPTIONS");
  const path = route.route.path.replace(/\[([^\]]+)\]/g, "$1");
  let accepted: Set<string> | undefined;
  for (const method of methods) {
    const response = await mod[method]!(
      new Request(`http://localhost${path}?${UNKNOWN_PARAMETER_PROBE}=1`, {
        method,
        headers: { authorization: `Bearer ${SECRET}`, "x-real-ip": "127.0.0.1" },
      }),
    );
    const body = (await response.json().catch(() => undefined)) as { code?: string; message?: string };
    const allowed =
      body?.code === "UnknownParameter" ? /Allowed: (.*)$/.exec(body.message ?? "")?.[1] : undefined;
    if (allowed === undefined) continue;
    accepted ??= new Set(route.route.params);
    for (const name of allowed === "none" ? [] : allowed.split(", ")) accepted.add(name);
  }
  return accepted;
}

const segmentsOf = (path: string) => path.split("/").filter(Boolean);

async function codeFacts(): Promise<Facts> {
  const routes = apiRoutes();
  const endpoints: Endpoint[] = [];
  for (const route of routes) {
    const paths = [...new Set([route.path, route.route.path])].map(segmentsOf);
    endpoints.push({
      label: route.path.replace(/\[([^\]]+)\]/g, "{$1}"),
      file: route.route.file.slice(ROOT.length).replace(/^\/+/, ""),
      paths,
      params: await acceptedParameters(route),
    });
  }
  const prefixes = [
    ...new Set(endpoints.flatMap((e) => e.paths.map((p) => p[0]).filter((s) => s))),
  ] as string[];

  const envVars = new Map<string, string>();
  const envDocumented = new Map<string, string>();
  const envTemplates = new Map<string, string>();
  const codeWords = new Set<string>();
  const config = read("lib/config.ts");
  const schema = /const EnvSchema = v\.object\(\{([\s\S]*?)\n\}\);/.exec(config)?.[1] ?? "";
  for (const [, name] of schema.matchAll(/^ {2}([A-Z][A-Z0-9_]*):/gm)) {
    envVars.set(name!, "lib/config.ts");
    envDocumented.set(name!, "lib/config.ts");
  }
  for (const dir of [...SERVICE_DIRS, ...OTHER_CODE_DIRS]) {
    for (const file of filesUnder(dir, [".ts", ".sql"])) {
      // This file names made-up variables on purpose (the tests below): they must not count as the code's.
      if (file === THIS_FILE) continue;
      const text = read(file);
      for (const [word] of text.matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)) codeWords.add(word.toUpperCase());
      for (const m of text.matchAll(ENV_READ)) {
        const name = (m[1] ?? m[2])!;
        if (!envVars.has(name)) envVars.set(name, file);
        if (SERVICE_DIRS.includes(dir) && !envDocumented.has(name)) envDocumented.set(name, file);
      }
      if (SERVICE_DIRS.includes(dir)) {
        for (const [, prefix] of text.matchAll(ENV_TEMPLATE)) {
          if (!envTemplates.has(prefix!)) envTemplates.set(prefix!, file);
        }
      }
    }
  }
  // Variables the repository's shell scripts set or read (CI's, the client checks', the peers benchmark's).
  for (const file of [".ci/run", ...filesUnder("scripts", [".sh"]), ...filesUnder("bench", [".sh"])]) {
    for (const m of read(file).matchAll(/\b([A-Z][A-Z0-9_]*)=|\$\{?([A-Z][A-Z0-9_]*)/g)) {
      const name = (m[1] ?? m[2])!;
      if (!envVars.has(name)) envVars.set(name, file);
    }
  }
  const scripts = new Set(
    Object.keys((JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts),
  );
  const chainKeys = new Set(CHAIN_NAMES.map((n) => n.toUpperCase().replace(/[^A-Z0-9]/g, "_")));
  return {
    endpoints,
    prefixes,
    envVars,
    envDocumented,
    envTemplates,
    chainKeys,
    codeWords,
    scripts,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Reading the docs

const isPlaceholder = (s: string) => /^(\{[^}]*\}|:[A-Za-z_]\w*|<[^>]+>)$/.test(s);
const isDynamic = (s: string) => /^\[[^\]]+\]$/.test(s);

/**
 * Whether a doc path's segments name a route's (all of it, or its start when `prefix`). A placeholder stands for a
 * dynamic segment, or for a static one where no route of the same start has a dynamic segment there (`{id}` for
 * the collections; `:uid` never names the static `stats` beside `[uid]`).
 */
function segmentsMatch(doc: string[], route: string[], prefix: boolean, all: string[][]): boolean {
  if (prefix ? doc.length > route.length : doc.length !== route.length) return false;
  return doc.every((d, i) => {
    const r = route[i]!;
    if (isDynamic(r)) return d !== "";
    if (!isPlaceholder(d)) return d === r;
    const choices = /^\{([^}]*\|[^}]*)\}$/.exec(d)?.[1]?.split("|");
    if (choices) return choices.includes(r);
    const start = route.slice(0, i).join("/");
    return !all.some((other) => other.slice(0, i).join("/") === start && isDynamic(other[i] ?? ""));
  });
}

type Mention = { path: string; prefix: boolean; keys: string[]; line: number };

/** The endpoint paths a line names (with the query keys they carry). */
function pathMentions(line: string, lineNo: number, prefixes: readonly string[]): Mention[] {
  // A URL's scheme and host are left out: its path is what names the endpoint.
  const text = line.replace(/\bhttps?:\/\/[^/\s"'`)]+/g, " ");
  const found: Mention[] = [];
  const segment = String.raw`(?:\{[^}\s/]*\}|[A-Za-z0-9._~%:<>-])*`;
  const path = new RegExp(
    String.raw`(?<![\w.~/-])/(?:${prefixes.join("|")})(?![\w-])(?:/${segment})*(\[?\?[^\s\`"')]*)?`,
    "g",
  );
  for (const m of text.matchAll(path)) {
    const query = m[1] ?? "";
    let p = m[0].slice(0, m[0].length - query.length);
    while (/[.:,]$/.test(p)) p = p.slice(0, -1);
    const after = text[m.index! + m[0].length] ?? "";
    const prefix = p.endsWith("/") || after === "*" || after === "…";
    const keys = [...query.matchAll(/(?:^|[?&])([A-Za-z][\w.-]*)=/g)].map((k) => k[1]!);
    found.push({ path: p, prefix, keys, line: lineNo });
  }
  // The root: `GET /`, `` `/` ``, or `/?f=html`.
  for (const m of text.matchAll(
    /(?:\b(?:GET|HEAD|POST) \/(?=[\s`|,)]|$)|`\/`|(?<![\w.~/-])\/(\?[^\s`"')]*))/g,
  )) {
    const keys = [...(m[1] ?? "").matchAll(/(?:^|[?&])([A-Za-z][\w.-]*)=/g)].map((k) => k[1]!);
    found.push({ path: "/", prefix: false, keys, line: lineNo });
  }
  return found;
}

type Table = { header: string; firstCells: { text: string; line: number }[] };

/** The markdown tables of a doc: each one's first header cell and the first cell of every body row. */
function tablesOf(lines: readonly string[]): Table[] {
  const tables: Table[] = [];
  let current: Table | undefined;
  lines.forEach((line, i) => {
    if (!line.startsWith("|")) {
      current = undefined;
      return;
    }
    const first = line.split("|")[1]?.trim() ?? "";
    if (!current) {
      current = { header: first.replace(/`/g, "").toLowerCase(), firstCells: [] };
      tables.push(current);
    } else if (!/^:?-+:?$/.test(first)) current.firstCells.push({ text: first, line: i + 1 });
  });
  return tables;
}

const backticked = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

const UPPER_SNAKE = /(?<![\w<])([A-Z][A-Z0-9]*(?:_(?:[A-Z0-9]+|<[A-Za-z]+>))+)(?![\w>])/g;

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");

/** Relative links between the docs (and into the repository) that lead nowhere: a missing file or heading. */
function brokenLinks(docs: readonly Doc[]): string[] {
  const problems: string[] = [];
  const anchors = new Map(
    docs.map((d) => [d.file, new Set([...d.text.matchAll(/^#+ (.+)$/gm)].map((m) => anchorOf(m[1]!)))]),
  );
  for (const doc of docs) {
    doc.text.split("\n").forEach((line, i) => {
      for (const [, target] of line.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const [path, anchor] = target!.split("#") as [string, string | undefined];
        const file = path ? join(doc.file, "..", path).replace(/^\.\//, "") : doc.file;
        let exists = anchors.has(file);
        if (!exists) {
          try {
            readFileSync(join(ROOT, file));
            exists = true;
          } catch {
            exists = false;
          }
        }
        if (!exists) problems.push(`${doc.file}:${i + 1}: link to ${target}: no file ${file}`);
        else if (anchor && anchors.has(file) && !anchors.get(file)!.has(anchor))
          problems.push(`${doc.file}:${i + 1}: link to ${target}: ${file} has no heading #${anchor}`);
      }
    });
  }
  return problems;
}

/** Every problem between the docs and the code, each naming the doc (and line) or the code file at fault. */
function checkDocs(docs: readonly Doc[], facts: Facts): string[] {
  const problems: string[] = [];
  const allPaths = facts.endpoints.flatMap((e) => e.paths);
  const documented = new Set<Endpoint>();
  const envNamed = new Set<string>();
  const templatesNamed = new Set<string>();
  const everyParam = new Set(facts.endpoints.flatMap((e) => [...(e.params ?? [])]));

  /** Whether `name` is a variable the code knows: as such, or as a per-chain one (`RPC_URL_<CHAIN>`). */
  const envKnown = (name: string): boolean => {
    if (facts.envVars.has(name)) return true;
    for (const prefix of facts.envTemplates.keys()) {
      if (!name.startsWith(prefix)) continue;
      const rest = name.slice(prefix.length);
      if (/^<[A-Za-z]+>$/.test(rest) || facts.chainKeys.has(rest)) {
        templatesNamed.add(prefix);
        return true;
      }
    }
    return false;
  };
  const checkParam = (where: string, name: string, what: string) => {
    if (everyParam.has(name)) return;
    problems.push(`${where}: ${what} '${name}' is accepted by no endpoint`);
  };

  for (const doc of docs) {
    const lines = doc.text.split("\n");
    lines.forEach((line, i) => {
      const at = `${doc.file}:${i + 1}`;
      for (const mention of pathMentions(line, i + 1, facts.prefixes)) {
        const segments = segmentsOf(mention.path);
        const hits = facts.endpoints.filter((e) =>
          e.paths.some((p) => segmentsMatch(segments, p, mention.prefix, allPaths)),
        );
        // A path no endpoint has may still start some (`/api/v0`, the native API's paths): it names them all.
        if (hits.length === 0 && !mention.prefix) {
          const group = facts.endpoints.some((e) =>
            e.paths.some((p) => segmentsMatch(segments, p, true, allPaths)),
          );
          if (group) continue;
        }
        if (hits.length === 0) {
          problems.push(
            `${at}: endpoint ${mention.path}${mention.prefix ? " (as a prefix)" : ""} does not exist (no api/ file or vercel.json rewrite serves it)`,
          );
          continue;
        }
        if (!mention.prefix) for (const e of hits) documented.add(e);
        if (hits.some((e) => e.params === undefined)) continue;
        const accepted = new Set(hits.flatMap((e) => [...e.params!]));
        for (const key of mention.keys) {
          if (!accepted.has(key)) {
            problems.push(
              `${at}: query parameter '${key}' of ${mention.path} is not accepted there (accepted: ${[...accepted].join(", ") || "none"})`,
            );
          }
        }
      }
      for (const m of line.matchAll(/--data-urlencode\s+["']?([A-Za-z][\w-]*)=/g))
        checkParam(at, m[1]!, "query parameter");
      for (const inline of backticked(line)) {
        const m = /^([a-z][A-Za-z0-9-]*)=\S*$/.exec(inline);
        if (m) checkParam(at, m[1]!, "query parameter");
      }
      // `NAME_X=value` is a variable for sure; any other UPPER_SNAKE name, or `NAME=value` (EWKT's `SRID=4326;`),
      // may also be a name the code gives something else (a constant, CQL2's S_INTERSECTS).
      const assigned = new Set([...line.matchAll(/(?<![\w./-])([A-Z][A-Z0-9_]+)=/g)].map((m) => m[1]!));
      const named = new Set([...assigned, ...[...line.matchAll(UPPER_SNAKE)].map((m) => m[1]!)]);
      for (const name of named) {
        if (envKnown(name)) envNamed.add(name);
        else if (assigned.has(name) && name.includes("_"))
          problems.push(`${at}: environment variable ${name} is read nowhere in the code`);
        else if (!facts.codeWords.has(name.toUpperCase()) || name.includes("<")) {
          problems.push(
            `${at}: ${name} is neither an environment variable the code reads nor a name the code defines`,
          );
        }
      }
      for (const m of line.matchAll(/\bnpm (?:run ([A-Za-z0-9:_-]+)|(test|start)\b)/g)) {
        const script = (m[1] ?? m[2])!;
        if (!facts.scripts.has(script)) problems.push(`${at}: npm script '${script}' is not in package.json`);
      }
    });
    for (const table of tablesOf(lines)) {
      for (const cell of table.firstCells) {
        const at = `${doc.file}:${cell.line}`;
        for (const name of backticked(cell.text)) {
          if (table.header === "parameter" && /^[A-Za-z][\w-]*$/.test(name))
            checkParam(at, name, "parameter");
          if (table.header === "variable" && /^[A-Z][A-Z0-9_]*(?:<[A-Za-z]+>)?$/.test(name)) {
            if (envKnown(name)) envNamed.add(name);
            else problems.push(`${at}: environment variable ${name} is read nowhere in the code`);
          }
        }
      }
    }
    // Variables named as plain words (PORT, CHAINS: no underscore, so not found above).
    for (const name of facts.envDocumented.keys()) {
      if (new RegExp(`(?<![A-Za-z0-9_])${name}(?![A-Za-z0-9_])`).test(doc.text)) envNamed.add(name);
    }
  }

  problems.push(...brokenLinks(docs));

  const docList = docs.map((d) => d.file).join(", ");
  for (const e of facts.endpoints) {
    if (!documented.has(e)) problems.push(`endpoint ${e.label} (${e.file}) is named in no doc (${docList})`);
  }
  for (const [name, file] of facts.envDocumented) {
    if (!envNamed.has(name))
      problems.push(`environment variable ${name} (read in ${file}) is named in no doc (${docList})`);
  }
  for (const [prefix, file] of facts.envTemplates) {
    if (!templatesNamed.has(prefix))
      problems.push(
        `environment variables ${prefix}<CHAIN> (read in ${file}) are named in no doc (${docList})`,
      );
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------------------------

describe("docs and code in step", () => {
  let facts: Facts;
  let docs: Doc[];

  beforeAll(async () => {
    setConfig(loadConfig({ LOG_LEVEL: "silent", RATE_LIMIT_PER_MINUTE: "0", CRON_SECRET: SECRET }));
    facts = await codeFacts();
    docs = readDocs();
  });
  afterAll(() => setConfig(undefined));

  it("derives the code's side from the code", () => {
    expect(facts.endpoints.length).toBeGreaterThan(10);
    // The native list and the OGC items answered the probe with their parameters.
    const list = facts.endpoints.find((e) => e.label === "/api/v0/location-proofs");
    expect([...(list?.params ?? [])]).toContain("includeRevoked");
    expect(facts.envDocumented.size).toBeGreaterThan(20);
    expect([...facts.envTemplates.keys()]).toContain("RPC_URL_");
    expect(facts.scripts.has("dev")).toBe(true);
  });

  it("every endpoint, parameter, variable and script the docs name exists, and every endpoint and variable is documented", () => {
    expect(checkDocs(docs, facts)).toEqual([]);
  });

  it("fails on a variable the code does not read, naming it and the file", () => {
    const bad = {
      file: "docs/example.md",
      text: "Intro.\nSet `SYNC_RETRY_DELAY_MS=500` or `LPQS_COLOUR`.\n",
    };
    const table = {
      file: "docs/table.md",
      text: "| Variable | Meaning |\n|---|---|\n| `RETRIES` | how often |\n",
    };
    expect(checkDocs([...docs, bad, table], facts)).toEqual([
      "docs/example.md:2: environment variable SYNC_RETRY_DELAY_MS is read nowhere in the code",
      "docs/example.md:2: LPQS_COLOUR is neither an environment variable the code reads nor a name the code defines",
      "docs/table.md:3: environment variable RETRIES is read nowhere in the code",
    ]);
  });

  it("fails on an endpoint no doc names, naming it", () => {
    const without = docs.map((d) => ({ ...d, text: d.text.replaceAll("/api/v0/location-proofs/stats", "") }));
    expect(checkDocs(without, facts)).toEqual([
      expect.stringMatching(
        /^endpoint \/api\/v0\/location-proofs\/stats \(api\/v0\/location-proofs\/stats\.ts\) is named in no doc/,
      ),
    ]);
  });

  it("fails on a variable the service reads that no doc names", () => {
    const without = docs.map((d) => ({ ...d, text: d.text.replaceAll("SYNC_LEASE_MS", "") }));
    expect(checkDocs(without, facts)).toEqual([
      expect.stringMatching(
        /^environment variable SYNC_LEASE_MS \(read in lib\/config\.ts\) is named in no doc/,
      ),
    ]);
  });

  it("fails on a link to a page or heading that does not exist", () => {
    const bad = {
      file: "docs/example.md",
      text: "See [the API](native-api.md#no-such-heading) and [x](nowhere.md).",
    };
    expect(checkDocs([...docs, bad], facts)).toEqual([
      "docs/example.md:1: link to native-api.md#no-such-heading: docs/native-api.md has no heading #no-such-heading",
      "docs/example.md:1: link to nowhere.md: no file docs/nowhere.md",
    ]);
  });

  it("fails on endpoints, parameters and scripts that do not exist", () => {
    const bad = {
      file: "docs/example.md",
      text: [
        "`GET /api/v0/location-proof` and `curl 'http://localhost:3000/api/v0/location-proofs?colour=red&limit=1'`",
        "| Parameter | Format |",
        "|---|---|",
        "| `sortby` | fine |",
        "| `orderBy` | not a parameter |",
        "Run `npm run bench:everything`; pass `pageSize=10`.",
      ].join("\n"),
    };
    expect(checkDocs([...docs, bad], facts)).toEqual([
      "docs/example.md:1: endpoint /api/v0/location-proof does not exist (no api/ file or vercel.json rewrite serves it)",
      expect.stringMatching(
        /^docs\/example\.md:1: query parameter 'colour' of \/api\/v0\/location-proofs is not accepted there \(accepted: .*includeRevoked/,
      ),
      "docs/example.md:6: query parameter 'pageSize' is accepted by no endpoint",
      "docs/example.md:6: npm script 'bench:everything' is not in package.json",
      "docs/example.md:5: parameter 'orderBy' is accepted by no endpoint",
    ]);
  });
});
