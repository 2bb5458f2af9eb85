export {};
// npm run bench -- <area> [<area> ...] [--flag ...]: runs the named benchmarks (all but workshop when none is
// named). Each area lives in bench/<area>.ts and exports bench<Area>(args), args being the flags after the area
// names: speed and memory are reported as ratios against real etcd measured in the same run wherever a real etcd
// counterpart exists (workshop has none: it reports absolutes and ratios to its own one-learner baseline).
const areas = ["raft", "wal", "storage", "grpc", "cluster", "etcdctl", "startup", "lab", "workshop"] as const;
type Area = (typeof areas)[number];

function isArea(s: string): s is Area {
  return (areas as readonly string[]).includes(s);
}

async function run(area: Area, args: string[]): Promise<void> {
  const mod = (await import(`./${area}.ts`)) as Record<string, unknown>;
  const name = `bench${area[0]?.toUpperCase()}${area.slice(1)}`;
  const fn = mod[name] ?? mod[`${name}Area`];
  if (typeof fn !== "function") throw new Error(`bench/${area}.ts does not export bench${area}`);
  console.log(`\n=== bench: ${area} ===`);
  await (fn as (args: string[]) => Promise<void>)(args);
}

const argv = process.argv.slice(2);
const firstFlag = argv.findIndex((a) => a.startsWith("-"));
const asked = firstFlag < 0 ? argv : argv.slice(0, firstFlag);
const flags = firstFlag < 0 ? [] : argv.slice(firstFlag);
const unknown = asked.filter((a) => !isArea(a));
if (unknown.length > 0) {
  console.error(`bench: unknown area(s) ${unknown.join(", ")}; known: ${areas.join(", ")}`);
  process.exit(2);
}
// workshop runs for many minutes and starts its own lab servers: only when asked for by name.
for (const area of asked.length > 0 ? asked.filter(isArea) : areas.filter((a) => a !== "workshop"))
  await run(area, flags);
