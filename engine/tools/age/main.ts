// age's entry point (bundled to dist/age.bundle.cjs by scripts/build.mjs and run through the code cache by bin/age).
// No top-level await: the bundle is CommonJS.

import { processIo } from "../cobra/io.ts";
import { runAge } from "./age.ts";

void runAge(processIo("age"), process.argv.slice(2)).then((code) => process.exit(code));
