// fill-quota's progress: the bar on a terminal, plain lines on a pipe, through `lab fill-quota` against a stub
// lab server that streams the engine's ndjson progress.
import { describe, expect, it } from "vitest";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { run } from "./commands.ts";
import { bar, fillBarLine, fillPlainLine, PlainThrottle } from "./progress-bar.ts";

const quota = 32 * 1024 * 1024;
const step = (dbSize: number, written: number) => ({ written, bytes: written * 131072, dbSize, quota });

describe("progress bar", () => {
  it("draws a bar of fixed width, clamped", () => {
    expect(bar(0, 10)).toBe("[>         ]");
    expect(bar(0.55, 10)).toBe("[=====>    ]");
    expect(bar(1, 10)).toBe("[==========]");
    expect(bar(1.4, 10)).toBe("[==========]");
    expect(bar(Number.NaN, 4)).toBe("[>   ]");
  });

  it("says how full the db is against the quota", () => {
    expect(fillBarLine(step(quota / 2, 100))).toBe(
      "[===============>              ]  50%  db 17 MB of 34 MB quota, 100 keys written",
    );
    expect(fillPlainLine(step(quota / 4, 50))).toBe(
      "fill-quota: db 8.4 MB of 34 MB quota (25%), 50 keys (6.6 MB) written",
    );
  });

  it("lets a pipe see the first report and one per tenth of the quota", () => {
    const t = new PlainThrottle();
    const seen = [0, 0.01, 0.05, 0.1, 0.12, 0.35, 0.36, 1.02].filter((f) => t.shouldPrint(step(f * quota, 1)));
    expect(seen).toEqual([0, 0.1, 0.35, 1.02]);
  });
});

describe("lab fill-quota", () => {
  async function fill(tty: boolean) {
    const server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/x-ndjson" });
      for (const f of [0.02, 0.04, 0.3, 0.31, 0.9])
        res.write(JSON.stringify(step(f * quota, Math.round(f * 256))) + "\n");
      res.end(
        JSON.stringify({
          done: true,
          written: 230,
          bytes: 230 * 131072,
          error: "etcdserver: mvcc: database space exceeded",
        }) + "\n",
      );
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const out: string[] = [];
    const progress: string[] = [];
    try {
      const code = await run(
        ["fill-quota"],
        { url, session: "s", token: "t" },
        {
          out: (l) => out.push(l),
          err: (l) => out.push(`err: ${l}`),
          progress: (l) => progress.push(l),
          tty,
        },
      );
      return { code, out, progress };
    } finally {
      server.close();
    }
  }

  it("redraws a bar on a terminal and leaves the last one on screen", async () => {
    const r = await fill(true);
    expect(r.code).toBe(0);
    expect(r.progress).toHaveLength(6);
    expect(r.progress[2]).toMatch(/^\[=========> +\] {2}30% {2}db 10 MB of 34 MB quota, 77 keys written$/);
    expect(r.progress.at(-1)).toBe("");
    expect(r.out).toEqual([
      "[===========================>  ]  90%  db 30 MB of 34 MB quota, 230 keys written",
      "wrote 230 keys (30 MB) under /lab/fill/",
      "stopped: etcdserver: mvcc: database space exceeded",
    ]);
  });

  it("prints plain lines on a pipe", async () => {
    const r = await fill(false);
    expect(r.progress).toEqual([]);
    expect(r.out.map((l) => l.replace(/ \(.*?\)/g, ""))).toEqual([
      "fill-quota: db 671 kB of 34 MB quota, 5 keys written",
      "fill-quota: db 10 MB of 34 MB quota, 77 keys written",
      "fill-quota: db 30 MB of 34 MB quota, 230 keys written",
      "wrote 230 keys under /lab/fill/",
      "stopped: etcdserver: mvcc: database space exceeded",
    ]);
  });
});
