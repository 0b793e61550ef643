import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    // Browser tests need Chromium: `npm run test:browser` runs them (tests/browser/vitest.config.ts).
    exclude: [...configDefaults.exclude, "tests/browser/**"],
    globalSetup: ["tests/helpers/global-setup.ts"],
    // After each file: every response it got through the router keeps to the OpenAPI documents (contract tests).
    setupFiles: ["tests/helpers/contract-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Test files share the machine's PostgreSQL, anvil ports and Redis: keep parallelism modest on 2 cores.
    maxWorkers: 2,
    env: { LOG_LEVEL: "silent" },
  },
});
