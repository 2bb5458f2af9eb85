// etcdctl's entry point (bundled to dist/etcdctl.mjs, launched by bin/etcdctl).

import { processIo } from "../cli/io.ts";
import { runEtcdctl } from "./ctl.ts";

const code = await runEtcdctl(processIo(), process.argv.slice(2));
process.exit(code);
