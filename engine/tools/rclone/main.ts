// rclone's entry point (bundled to dist/rclone.bundle.cjs by scripts/build.mjs, launched by bin/rclone).
// No top-level await: the bundle is CommonJS.

import { processIo } from "../cobra/io.ts";
import { runRclone } from "./rclone.ts";

void runRclone(processIo("rclone"), process.argv.slice(2)).then((code) => process.exit(code));
