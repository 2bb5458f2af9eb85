export {};
// npm run bench -- <area> [<area> ...]: runs the named benchmarks (all when none is named). Each area lives
// in bench/<area>.ts and exports bench<Area>(): speed and memory are reported as ratios against real etcd
// measured in the same run wherever a real etcd counterpart exists.
const areas = ["raft", "wal", "storage", "grpc", "cluster", "etcdctl", "startup", "lab"] as const;
type Area = (typeof areas)[number];

function isArea(s: string): s is Area {
  return (areas as readonly string[]).includes(s);
}

async function run(area: Area): Promise<void> {
  const mod = (await import(`./${area}.ts`)) as Record<string, unknown>;
  const name = `bench${area[0]?.toUpperCase()}${area.slice(1)}`;
  const fn = mod[name] ?? mod[`${name}Area`];
  if (typeof fn !== "function") throw new Error(`bench/${area}.ts does not export bench${area}`);
  console.log(`\n=== bench: ${area} ===`);
  await (fn as () => Promise<void>)();
}

const asked = process.argv.slice(2).filter((a) => !a.startsWith("-"));
const unknown = asked.filter((a) => !isArea(a));
if (unknown.length > 0) {
  console.error(`bench: unknown area(s) ${unknown.join(", ")}; known: ${areas.join(", ")}`);
  process.exit(2);
}
for (const area of asked.length > 0 ? asked.filter(isArea) : areas) await run(area);
