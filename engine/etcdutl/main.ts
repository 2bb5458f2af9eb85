// etcdutl's entry point (bundled to dist/etcdutl.mjs, launched by bin/etcdutl).

import { processIo } from "../cli/io.ts";
import { runEtcdutl } from "./etcdutl.ts";

const code = await runEtcdutl(processIo("etcdutl"), process.argv.slice(2));
process.exit(code);
