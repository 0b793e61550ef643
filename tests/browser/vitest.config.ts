import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import base from "../../vitest.config.js";

/**
 * Browser tests (`npm run test:browser`): they need Debian's chromium at /usr/bin/chromium, so the default suite
 * excludes them and this configuration runs only them, with the same global setup (migrated database template).
 */
export default defineConfig({
  ...base,
  root: fileURLToPath(new URL("../..", import.meta.url)),
  test: { ...base.test, include: ["tests/browser/**/*.test.ts"], exclude: ["**/node_modules/**"] },
});
