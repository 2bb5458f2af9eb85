import { it } from "vitest";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { Session, SolveAnswer } from "../../engine/lab-engine/index.ts";
import { startTestServer } from "./helpers.ts";
it("scratch", async () => {
  const backend = (process.env["L07_BACKEND"] ?? "ours") as "ours";
  const t = await startTestServer({ backend, labsDir: "/tmp/l07s/labs" });
  try {
    const t0 = Date.now();
    const res = await t.api<Session>("POST", "/api/sessions", { lab: "07-scratch" }, { learner: "h" });
    console.log("session", res.status, Date.now() - t0, "ms");
    const s = res.body;
    const t1 = Date.now();
    const r = await t.api<SolveAnswer>("POST", `/api/sessions/${s.id}/tasks/a/solve`, {}, { learner: "h" });
    console.log("solve ms", Date.now() - t1, JSON.stringify(r.body.commands));
    const home = join(s.workspace, "home");
    for (const f of readdirSync(home).filter((f) => f.endsWith(".txt")).sort()) console.log(`==== ${f}\n` + readFileSync(join(home, f), "utf8"));
  } finally {
    await t.server.close();
  }
}, 600_000);
