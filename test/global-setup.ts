// Vitest global setup: bundle the command-line tools once so tests that spawn `etcd`, `etcdctl`, `etcdutl`
// or `lab` run what a learner runs.
// @ts-expect-error -- plain ESM build script without type declarations
import { buildAll } from "../scripts/build.mjs";

export default async function setup(): Promise<void> {
  await (buildAll as () => Promise<string[]>)();
}
