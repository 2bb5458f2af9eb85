// age-keygen's entry point (bundled to dist/age-keygen.bundle.cjs by scripts/build.mjs, launched by bin/age-keygen).
// No top-level await: the bundle is CommonJS.

import { processIo } from "../cobra/io.ts";
import { runAgeKeygen } from "./keygen.ts";

void runAgeKeygen(processIo("age-keygen"), process.argv.slice(2)).then((code) => process.exit(code));
