import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: [
      "engine/**/*.test.ts",
      "lab/**/*.test.ts",
      "test/**/*.test.ts",
      "site/src/**/*.test.ts",
      "scripts/**/*.test.ts",
    ],
    exclude: ["node_modules/**", "dist/**", "site/dist/**"],
    globalSetup: ["test/global-setup.ts"],
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
