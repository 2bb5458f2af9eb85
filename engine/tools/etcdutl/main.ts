// etcdutl's entry point (bundled to dist/etcdutl.bundle.cjs, run through the code cache by bin/etcdutl and
// dist/etcdutl.mjs). No top-level await: the bundle is CommonJS (see scripts/build.mjs).

import { processIo } from "../cobra/io.ts";
import { runEtcdutl } from "./etcdutl.ts";

void runEtcdutl(processIo("etcdutl"), process.argv.slice(2)).then((code) => process.exit(code));
