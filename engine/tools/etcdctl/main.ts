// etcdctl's entry point (bundled to dist/etcdctl.bundle.cjs, run through the code cache by bin/etcdctl and
// dist/etcdctl.mjs). No top-level await: the bundle is CommonJS (see scripts/build.mjs).

import { processIo } from "../cobra/io.ts";
import { runEtcdctl } from "./ctl.ts";

void runEtcdctl(processIo(), process.argv.slice(2)).then((code) => process.exit(code));
