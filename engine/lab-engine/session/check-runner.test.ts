import { describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CheckRunner, runBounded, type CheckInputs } from "./check-runner.ts";
import { ProgressStore } from "./progress-store.ts";
import type { LabEventBody } from "../types/event-types.ts";
import type { LabDefinition } from "../../../lab/lab-format.ts";
import type { LabStore } from "../types/lab-store.ts";

// These checks read only a variable the test flips; the store is never touched.
let state = { ok: false, message: "not yet" };
const unusedStore = new Proxy({} as LabStore, {
  get: () => () => Promise.reject(new Error("the store is not used by these checks")),
});

const lab: LabDefinition = {
  id: "00-runner",
  title: "Runner",
  cluster: { members: 1 },
  tasks: [
    {
      id: "flip",
      title: "Flip",
      check: async () => ({ passed: state.ok, message: state.message }),
      hints: ["h1", "h2"],
      solution: ["true"],
    },
    {
      id: "throws",
      title: "Throws",
      check: async () => Promise.reject(new Error("etcdserver: no leader")),
      hints: [],
      solution: ["true"],
    },
    { id: "bad", title: "Bad", check: async () => ({ passed: "yes" }) as never, hints: [], solution: ["true"] },
    {
      id: "files",
      title: "Files",
      check: async (ctx) => ({ passed: (await ctx.files.read("home/x")) === null, message: ctx.task }),
      hints: [],
      solution: ["true"],
    },
    {
      id: "params",
      title: "Params",
      goal: "Stop {{TARGET}}.",
      check: async (ctx) => ({ passed: false, message: `TARGET=${ctx.params["TARGET"]}` }),
      hints: [],
      solution: ["true"],
    },
  ],
};

function runner(solved: (t: string) => boolean = () => false) {
  const events: LabEventBody[] = [];
  const progress = new ProgressStore(mkdtempSync(join(tmpdir(), "etcd-lab-runner-")));
  const inputs = (task: string): CheckInputs => ({
    lab: lab.id,
    task,
    backend: "real",
    endpoints: [],
    store: unusedStore,
    client: unusedStore as never,
    status: () => Promise.reject(new Error("unused")),
    events: [],
    workspace: mkdtempSync(join(tmpdir(), "etcd-lab-runner-ws-")),
    env: {},
    params: { TARGET: "m2" },
    kube: null,
  });
  const r = new CheckRunner({
    lab,
    learnerId: "learner1",
    progress,
    log: (e) => events.push(e),
    context: (t) => inputs(t.id),
    solved: (t) => solved(t.id),
  });
  return { r, events, progress };
}

const task = (id: string) => lab.tasks.find((t) => t.id === id)!;

describe("check runner", () => {
  it("keeps a task passed once it passed, with the passing message, and logs only changes", async () => {
    const { r, events, progress } = runner();
    state = { ok: false, message: "not yet" };
    expect(await r.check(task("flip"))).toMatchObject({ passed: false, message: "not yet", passedAt: null });
    await r.check(task("flip"));
    state = { ok: true, message: "done" };
    const passed = await r.check(task("flip"));
    expect(passed).toMatchObject({ passed: true, message: "done" });
    state = { ok: false, message: "broken again" };
    const sticky = await r.check(task("flip"));
    expect(sticky).toMatchObject({ passed: true, message: "done", passedAt: passed.passedAt });
    expect(events.map((e) => (e.type === "check" ? `${e.passed}:${e.message}` : e.type))).toEqual([
      "false:not yet",
      "true:done",
      "false:broken again",
    ]);
    expect(progress.task("learner1", lab.id, "flip").passed).toBe(true);
    expect(sticky.current).toEqual({ passed: false, message: "broken again" });
  });

  it("says what this cluster shows now (current) beside the sticky pass, and forgets a pass whose progress was cleared", async () => {
    const { r, progress } = runner();
    state = { ok: true, message: "done" };
    expect((await r.check(task("flip"))).current).toEqual({ passed: true, message: "done" });
    r.forget(); // a reset: the new cluster was not checked yet
    expect(r.results()[0]).toMatchObject({ passed: true, current: null });
    state = { ok: false, message: "not on this cluster" };
    expect(await r.check(task("flip"))).toMatchObject({
      passed: true,
      current: { passed: false, message: "not on this cluster" },
    });
    state = { ok: true, message: "done" };
    await r.check(task("flip"));
    progress.clear("learner1", lab.id);
    expect(r.results()[0]).toMatchObject({ passed: false, passedAt: null, current: null });
  });

  it("turns a throwing or malformed check into a failed result naming why", async () => {
    const { r } = runner();
    expect((await r.check(task("throws"))).message).toBe("The check could not read the cluster: etcdserver: no leader");
    expect((await r.check(task("bad"))).message).toBe("The check returned no { passed, message } (a bug in the lab).");
    expect((await r.check(task("files"))).message).toBe("files");
  });

  it("reveals hints one at a time and repeats the last", () => {
    const { r } = runner();
    expect(
      [r.hint(task("flip")), r.hint(task("flip")), r.hint(task("flip"))].map((h) => `${h.index}:${h.hint}`),
    ).toEqual(["0:h1", "1:h2", "1:h2"]);
    expect(r.states()[0]).toMatchObject({ hints: ["h1", "h2"], hintCount: 2 });
    expect(r.hint(task("throws"))).toEqual({ task: "throws", index: -1, total: 0, hint: "This task has no hints." });
  });

  it("auto-checks only tasks not passed yet and returns what changed", async () => {
    const { r } = runner();
    state = { ok: true, message: "auto" };
    const first = await r.autoCheck();
    expect(first.map((x) => x.task).sort()).toEqual(["bad", "files", "flip", "params", "throws"]);
    expect(await r.autoCheck()).toEqual([]); // nothing changed; flip and files are passed and skipped
  });

  it("counts failed explicit checks as attempts until the task passes, not the automatic ones", async () => {
    const { r, progress } = runner();
    state = { ok: false, message: "not yet" };
    await r.check(task("flip"));
    await r.check(task("flip"));
    await r.autoCheck();
    expect(progress.task("learner1", lab.id, "flip")).toMatchObject({ attempts: 2, passed: false, solvedBy: null });
    state = { ok: true, message: "done" };
    await r.check(task("flip"));
    state = { ok: false, message: "broken again" };
    await r.check(task("flip")); // passed already: no attempt
    expect(progress.task("learner1", lab.id, "flip")).toMatchObject({ attempts: 2, passed: true, solvedBy: "learner" });
  });

  it("says a task was solved by Solve when its solution ran in the session", async () => {
    let solving = false;
    const { r, progress } = runner(() => solving);
    state = { ok: false, message: "not yet" };
    await r.check(task("flip"));
    solving = true;
    state = { ok: true, message: "done" };
    await r.check(task("flip"));
    solving = false;
    await r.check(task("flip")); // stays what it was when it passed
    expect(progress.task("learner1", lab.id, "flip")).toMatchObject({ passed: true, solvedBy: "solve", attempts: 1 });
  });

  it("hands the check the session's params and the goal of each result", async () => {
    const { r } = runner();
    expect((await r.check(task("params"))).message).toBe("TARGET=m2");
    expect(r.results().find((x) => x.task === "params")?.goal).toBe("Stop {{TARGET}}.");
  });
});

describe("runBounded", () => {
  const env = { PATH: process.env["PATH"] ?? "/usr/bin:/bin" };
  it("returns code and output", async () => {
    expect(await runBounded("bash", ["-c", "echo out; echo err >&2; exit 3"], tmpdir(), env, 5000)).toEqual({
      code: 3,
      stdout: "out\n",
      stderr: "err\n",
    });
  });

  it("kills the whole process group when the time is up", async () => {
    const r = await runBounded("bash", ["-c", "sleep 30 & sleep 30"], tmpdir(), env, 300);
    expect(r.code).toBeNull();
    expect(r.stderr).toBe("bash: killed after 0.3 s\n");
  });

  it("answers once the program exited even if a background job holds its pipes", async () => {
    // Had it waited for the pipes to close, stdout would end with "late".
    const r = await runBounded("bash", ["-c", "(sleep 5; echo late) & echo early"], tmpdir(), env, 20_000);
    expect(r).toMatchObject({ code: 0, stdout: "early\n" });
  });
});
