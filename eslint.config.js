// @ts-check
import { readFileSync } from "node:fs";
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

/**
 * pureCores is the one list of the pure cores: tsconfig.pure.json's `include`, which compiles them without Node's
 * types. This file lints them with the rules below and test/tidy.test.ts checks them again (see docs/architecture.md).
 */
const pureCores = JSON.parse(readFileSync(new URL("./tsconfig.pure.json", import.meta.url), "utf8")).include;

/** pureImports forbids the I/O modules in a pure core. */
const pureImports = {
  group: ["node:*", "fs", "path", "os", "net", "http", "http2", "child_process", "crypto", "timers", "worker_threads"],
  message: "Pure core: no I/O modules.",
};

/**
 * The import rules between the products (engine/README.md). An import is matched by its specifier, so each rule
 * names the folders it forbids: `(^|/)tools/` is engine/tools from anywhere below engine/, `^(\.\./)+lab/` is the
 * repository's lab/ (lab definitions). Test files follow the rules of their product too.
 */
const layer = {
  common: { regex: "^\\.\\./", message: "engine/common imports nothing outside itself (engine/README.md)." },
  go: { regex: "^\\.\\./(?!common/)", message: "engine/go imports only engine/common (engine/README.md)." },
  aws: { regex: "^\\.\\./", message: "engine/aws imports nothing outside itself (engine/README.md)." },
  notTools: { regex: "(^|/)tools/", message: "Only the tools import engine/tools (engine/README.md)." },
  notLabEngine: {
    regex: "(^|/)lab-engine/",
    message: "The store and the tools do not import the lab engine (engine/README.md).",
  },
  notLab: { regex: "^(\\.\\./)+lab/", message: "Only the lab engine imports lab/ (engine/README.md)." },
  notKube: { regex: "(^|/)kube/", message: "The store does not import engine/kube (engine/README.md)." },
  kubeApiOnly: {
    regex: "(^|/)kube/(?!api/)",
    message: "The tools import engine/kube/api only, never the apiserver or the simulation (engine/README.md).",
  },
  storeClientSide: {
    regex: "(^|/)store/(?!client/|proto/|grpc/)",
    message:
      "Outside the store, only its client side is imported: engine/store/client, proto, grpc (engine/README.md).",
  },
  storeClientSideOrOffline: {
    regex: "(^|/)store/(?!client/|proto/|grpc/|offline\\.ts$)",
    message:
      "etcdutl imports the store's client side and its offline surface engine/store/offline.ts only (engine/README.md).",
  },
  siteEntry: {
    regex: "(^|/)engine/(?!lab-engine/index\\.ts$)",
    message: "The site reaches the engine through engine/lab-engine/index.ts only (engine/README.md).",
  },
  sandboxBelow: {
    regex: "^\\.\\./(session|http|web|workshop|lti|lab-cli|kube|terminal|cluster|s3|backup)/",
    message:
      "lab-engine/sandbox sits below what it runs: it imports types/ and host/ only (engine/lab-engine/README.md).",
  },
  labFormat: {
    regex: "(^|/)engine/(?!lab-engine/types/|store/client/)",
    message:
      "A lab imports its format (lab/lab-format.ts); from the engine only lab-engine/types and store/client types.",
  },
};

/** restrict is one no-restricted-imports rule from pattern rows (a file gets exactly one: the last block wins). */
function restrict(...patterns) {
  return { "no-restricted-imports": ["error", { patterns }] };
}

/** pureCoreRules are the rules a pure core adds to its product's import rules. */
const pureCoreRules = {
  "no-restricted-globals": ["error", ...impure.globals],
  "no-restricted-properties": ["error", ...impure.properties],
};

/** globsOf turns tsconfig include entries (folders) into lint globs. */
const globsOf = (dirs) => dirs.map((d) => `${d}/**/*.ts`);
const pureStore = pureCores.filter((d) => d.startsWith("engine/store/"));

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
  // The products and their import rules (engine/README.md), then the pure cores (tsconfig.pure.json).
  {
    files: ["engine/store/**/*.ts"],
    rules: restrict(layer.notTools, layer.notLabEngine, layer.notLab, layer.notKube),
  },
  {
    files: ["engine/tools/**/*.ts"],
    rules: restrict(layer.notLabEngine, layer.notLab, layer.storeClientSide, layer.kubeApiOnly),
  },
  {
    files: ["engine/tools/etcdutl/**/*.ts"],
    rules: restrict(layer.notLabEngine, layer.notLab, layer.storeClientSideOrOffline, layer.kubeApiOnly),
  },
  {
    files: ["engine/kube/**/*.ts"],
    rules: restrict(layer.notTools, layer.notLabEngine, layer.notLab, layer.storeClientSide),
  },
  { files: ["engine/lab-engine/**/*.ts"], rules: restrict(layer.notTools, layer.storeClientSide) },
  {
    files: ["engine/lab-engine/sandbox/**/*.ts"],
    ignores: ["engine/lab-engine/sandbox/**/*.test.ts"],
    rules: restrict(layer.notTools, layer.storeClientSide, layer.sandboxBelow),
  },
  { files: ["engine/go/**/*.ts"], rules: restrict(layer.go) },
  { files: ["engine/aws/**/*.ts"], rules: restrict(layer.aws) },
  { files: ["site/**/*.{ts,mjs,js}"], rules: restrict(layer.siteEntry, layer.notLab) },
  { files: ["lab/**/*.ts"], rules: restrict(layer.labFormat) },
  {
    files: globsOf(pureStore),
    ignores: ["**/*.test.ts", "**/testdata/**"],
    rules: { ...restrict(pureImports, layer.notTools, layer.notLabEngine, layer.notLab), ...pureCoreRules },
  },
  {
    files: ["engine/common/**/*.ts"],
    ignores: ["**/*.test.ts"],
    rules: { ...restrict(pureImports, layer.common), ...pureCoreRules },
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
