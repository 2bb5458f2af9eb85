// auger's entry point (bundled to dist/auger.bundle.cjs, run through the code cache by bin/auger and
// dist/auger.mjs). No top-level await: the bundle is CommonJS (see scripts/build.mjs).

import { processIo } from "../cobra/io.ts";
import { runAuger } from "./auger.ts";

void runAuger(processIo("auger"), process.argv.slice(2)).then((code) => process.exit(code));
