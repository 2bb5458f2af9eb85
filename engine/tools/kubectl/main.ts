// kubectl's entry point (bundled to dist/kubectl.bundle.cjs, run through the code cache by bin/kubectl and
// dist/kubectl.mjs). No top-level await: the bundle is CommonJS (see scripts/build.mjs).

import { processIo } from "../cobra/io.ts";
import { runKubectl } from "./kubectl.ts";

void runKubectl(processIo("kubectl"), process.argv.slice(2)).then((code) => process.exit(code));
