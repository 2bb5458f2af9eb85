// bench-startup: what loading the wire layer costs a fresh process — node's http2/net/tls modules plus our
// bundled client (proto + grpc + client, as esbuild bundles it into dist/etcdctl.mjs) — against loading
// @grpc/grpc-js + @grpc/proto-loader + rpc.proto (the path we avoid). Medians of fresh processes.
//   npx tsx engine/store/client/bench-startup.ts [--runs 9]
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** benchStartup prints median in-process load times (ms) of both stacks. */
export async function benchStartup(runs = 9): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "etcd-lab-startup-"));
  const bundle = join(dir, "client.mjs");
  await build({
    entryPoints: [join(import.meta.dirname, "index.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile: bundle,
    logLevel: "warning",
  });
  const ours = join(dir, "ours.mjs");
  writeFileSync(
    ours,
    `const t0 = performance.now(); await import("node:http2"); await import("node:net"); await import("node:tls");\n` +
      `const t1 = performance.now(); await import(${JSON.stringify(bundle)});\n` +
      `console.log(JSON.stringify([t1 - t0, performance.now() - t1]));\n`,
  );
  const theirs = join(dir, "theirs.mjs");
  const root = join(import.meta.dirname, "../../..");
  writeFileSync(
    theirs,
    `import { createRequire } from "node:module"; const require = createRequire(${JSON.stringify(join(root, "package.json"))});\n` +
      `const t0 = performance.now(); const grpc = require("@grpc/grpc-js"); const pl = require("@grpc/proto-loader");\n` +
      `grpc.loadPackageDefinition(pl.loadSync("etcdserverpb/rpc.proto", { includeDirs: [${JSON.stringify(join(root, "engine/store/proto"))}], keepCase: true, longs: String }));\n` +
      `console.log(JSON.stringify([performance.now() - t0]));\n`,
  );
  const builtins: number[] = [];
  const client: number[] = [];
  const grpcjs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const [b, c] = JSON.parse(execFileSync("node", [ours], { encoding: "utf8" })) as [number, number];
    builtins.push(b);
    client.push(c);
    grpcjs.push((JSON.parse(execFileSync("node", [theirs], { encoding: "utf8" })) as [number])[0]);
  }
  const ourTotal = median(builtins) + median(client);
  console.log(
    `node http2/net/tls: ${median(builtins).toFixed(1)} ms; our client bundle: ${median(client).toFixed(1)} ms`,
  );
  console.log(
    `grpc-js + proto-loader + rpc.proto: ${median(grpcjs).toFixed(1)} ms (${(median(grpcjs) / ourTotal).toFixed(1)}× ours)`,
  );
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const i = process.argv.indexOf("--runs");
  await benchStartup(i > 0 ? Number(process.argv[i + 1]) : 9);
}
