// @ts-check
import js from "@eslint/js";
import tseslint from "typescript-eslint";

/** Globals and properties that make code depend on the real world. The pure cores get them by injection. */
const impure = {
  globals: [
    "setTimeout",
    "setInterval",
    "setImmediate",
    "clearTimeout",
    "clearInterval",
    "queueMicrotask",
    "process",
    "performance",
    "fetch",
  ].map((name) => ({
    name,
    message: "Pure core: time and I/O come in through injected interfaces (ticks, Clock, Rng).",
  })),
  properties: [
    { object: "Date", property: "now", message: "Pure core: time comes from tick() or an injected Clock." },
    { object: "Math", property: "random", message: "Pure core: randomness comes from an injected seeded Rng." },
  ],
};

export default tseslint.config(
  {
    ignores: ["node_modules/", "dist/", "site/dist/", "site/.astro/", "**/gen/", "test-results/", ".tmp/", ".tmp-*"],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        console: "readonly",
        process: "readonly",
        Buffer: "readonly",
        URL: "readonly",
        TextEncoder: "readonly",
        TextDecoder: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
        setInterval: "readonly",
        clearInterval: "readonly",
        setImmediate: "readonly",
        queueMicrotask: "readonly",
        performance: "readonly",
        AbortController: "readonly",
        AbortSignal: "readonly",
        structuredClone: "readonly",
      },
    },
    rules: {
      // Unused names are errors, but a leading underscore marks an intentionally unused parameter.
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
      eqeqeq: ["error", "always"],
    },
  },
  {
    // The pure cores: no node:* modules, no clocks, no randomness, no timers (../shared/style.md).
    files: [
      "engine/store/raft/**/*.ts",
      "engine/store/mvcc/**/*.ts",
      "engine/store/lease/**/*.ts",
      "engine/common/**/*.ts",
    ],
    ignores: ["**/*.test.ts", "**/testdata/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: [
                "node:*",
                "fs",
                "path",
                "os",
                "net",
                "http",
                "http2",
                "child_process",
                "crypto",
                "timers",
                "worker_threads",
              ],
              message: "Pure core: no I/O modules.",
            },
          ],
        },
      ],
      "no-restricted-globals": ["error", ...impure.globals],
      "no-restricted-properties": ["error", ...impure.properties],
    },
  },
  {
    files: ["site/**/*.{js,ts}"],
    languageOptions: {
      globals: {
        window: "readonly",
        document: "readonly",
        localStorage: "readonly",
        WebSocket: "readonly",
        HTMLElement: "readonly",
        customElements: "readonly",
        location: "readonly",
        navigator: "readonly",
        fetch: "readonly",
        requestAnimationFrame: "readonly",
        ResizeObserver: "readonly",
        KeyboardEvent: "readonly",
        Event: "readonly",
        CustomEvent: "readonly",
      },
    },
  },
);
