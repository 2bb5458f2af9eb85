import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, connect, type Server } from "node:net";
import { join } from "node:path";
import { DirectDriver, type SessionBox } from "./driver.ts";
import { checkNamespaces, NamespacesDriver, relayBundle, scrubEnv } from "./namespaces-driver.ts";
import { parseSandboxMode } from "./create-driver.ts";
import { freePorts } from "../cluster/ports.ts";
import { spawnCommand } from "./driver.ts";

/** runnable: these tests need root, bubblewrap and the built relay; CI has all three, so there they never skip. */
const runnable = process.getuid?.() === 0 && existsSync("/usr/bin/bwrap") && existsSync(relayBundle());
if (!runnable) {
  const why = "namespaces sandbox tests need root, /usr/bin/bwrap and dist/lab-relay.mjs (npm run build)";
  if (process.env["CI"]) throw new Error(`${why}: CI must run them`);
  console.warn(`\n*** SKIPPING ${why} ***\n`);
}

const env = { PATH: "/usr/bin:/bin" };

/** runBounded runs a program (in `box` when given) and collects its exit code and output. */
function runBounded(file: string, args: string[], cwd: string, e: Record<string, string>, box?: SessionBox) {
  const c = { file, args, cwd, env: e };
  const child = box ? box.spawn(c, {}) : spawnCommand(c, {});
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, stderr })),
  );
}

function run(box: SessionBox, script: string) {
  return runBounded("bash", ["-c", script], box.workspace, env, box);
}

describe("DirectDriver", () => {
  it("runs programs unchanged, as the server's user", async () => {
    const box = await new DirectDriver().open("s", "/tmp");
    expect(box.command({ file: "x", args: ["y"], cwd: "/", env: {} })).toEqual({
      file: "x",
      args: ["y"],
      cwd: "/",
      env: {},
    });
    const r = await runBounded("id", ["-u"], "/tmp", env, box);
    expect(r.stdout.trim()).toBe(String(process.getuid?.()));
  });
});

describe("checkSandbox", () => {
  it("refuses namespaces without bubblewrap, naming the install command", () => {
    expect(() => checkNamespaces((p) => p !== "/usr/bin/bwrap")).toThrow(
      /--sandbox namespaces needs \/usr\/bin\/bwrap: install with: sudo apt-get install -y bubblewrap/,
    );
    expect(() => checkNamespaces((p) => p !== "/usr/bin/nsenter" && p !== "/usr/bin/bwrap")).toThrow(
      /apt-get install -y bubblewrap util-linux/,
    );
  });

  it("knows the modes", () => {
    expect(parseSandboxMode("namespaces")).toBe("namespaces");
    expect(() => parseSandboxMode("docker")).toThrow('--sandbox: expected direct or namespaces, got "docker"');
  });
});

describe("scrubEnv", () => {
  it("drops the server's own secrets and keeps what the engine made for the session", () => {
    const own = { ETCD_LAB_ADMIN_TOKEN: "adm", AWS_SECRET_ACCESS_KEY: "x", PATH: "/bin" };
    expect(
      scrubEnv({ ETCD_LAB_ADMIN_TOKEN: "adm", AWS_SECRET_ACCESS_KEY: "x", PATH: "/bin", RCLONE_SECRET: "mine" }, own),
    ).toEqual({ PATH: "/bin", RCLONE_SECRET: "mine" });
  });
});

describe.skipIf(!runnable)("NamespacesDriver", () => {
  let home: string;
  let driver: NamespacesDriver;
  let a: SessionBox;
  let b: SessionBox;
  const servers: Server[] = [];

  beforeAll(async () => {
    home = mkdtempSync("/tmp/etcd-lab-sbx-");
    for (const s of ["a", "b"]) mkdirSync(join(home, "sessions", s, "home"), { recursive: true });
    writeFileSync(join(home, "sessions", "b", "home", "secret.txt"), "b's file\n");
    writeFileSync(join(home, "server-secret"), "server's\n");
    driver = new NamespacesDriver({ home, runId: `t${process.pid}`, maxProcesses: 64 });
    a = await driver.open("a", join(home, "sessions", "a"));
    b = await driver.open("b", join(home, "sessions", "b"));
  });

  afterAll(async () => {
    for (const s of servers) s.close();
    await driver?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it("gives each session its own uid, owning its workspace with mode 0700", async () => {
    expect(a.uid).not.toBe(b.uid);
    expect((await run(a, "id -u")).stdout.trim()).toBe(String(a.uid));
    const st = statSync(a.workspace);
    expect(st.uid).toBe(a.uid);
    expect(st.mode & 0o777).toBe(0o700);
  });

  it("spawns the program itself: the pid the engine gets is the program's", async () => {
    const child = a.spawn({ file: "bash", args: ["-c", "echo $$; sleep 5"], cwd: a.workspace, env }, {});
    const out = await new Promise<string>((r) => child.stdout?.once("data", (d: Buffer) => r(d.toString())));
    expect(Number(out.trim())).toBe(child.pid);
    const stat = readFileSync(`/proc/${child.pid}/status`, "utf8");
    expect(stat).toMatch(new RegExp(`^Uid:\\s+${a.uid}\\s`, "m"));
    expect(stat).toMatch(/^NoNewPrivs:\s+1$/m);
    expect(stat).toMatch(/^CapEff:\s+0+$/m);
    child.kill("SIGKILL");
  });

  it("keeps other workspaces, the lab home and the server's processes out of sight", async () => {
    const r = await run(
      a,
      [
        `cat ${join(home, "sessions", "b", "home", "secret.txt")} && echo READ-B`,
        `cat ${join(home, "server-secret")} && echo READ-HOME`,
        `cat /proc/${process.pid}/environ && echo READ-ENV`,
        `cat /proc/${process.pid}/cmdline && echo READ-ARGV`,
        `ps -eo user= | sort -u`,
      ].join("; "),
    );
    expect(r.stdout).not.toMatch(/READ-/);
    expect(r.stdout.trim().split("\n")).toEqual([String(a.uid)]); // ps sees only this session's user
  });

  it("gives each box its own /tmp", async () => {
    await run(a, "echo a > /tmp/mine");
    expect((await run(b, "cat /tmp/mine")).code).not.toBe(0);
    expect((await run(a, "cat /tmp/mine")).stdout).toBe("a\n");
    expect(existsSync("/tmp/mine")).toBe(false);
  });

  it("cannot signal another session's processes", async () => {
    const child = b.spawn({ file: "sleep", args: ["30"], cwd: b.workspace, env }, {});
    await new Promise((r) => child.once("spawn", r));
    const r = await run(a, `kill -STOP ${child.pid} && echo SIGNALLED`);
    expect(r.stdout).not.toMatch(/SIGNALLED/);
    expect(readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1]?.[0]).toBe("S");
    child.kill("SIGKILL");
  });

  it("exposes a box's listening port to the server, not to another box", async () => {
    const [port] = (await freePorts(1)) as [number];
    await a.expose([port]);
    const listener = a.spawn(
      {
        file: process.execPath,
        args: [
          "-e",
          `require("net").createServer(s=>s.end("from a\\n")).listen(${port},"127.0.0.1",()=>console.log("up"))`,
        ],
        cwd: a.workspace,
        env,
      },
      {},
    );
    await new Promise((r) => listener.stdout?.once("data", r));
    const got = await new Promise<string>((resolve, reject) => {
      const c = connect(port, "127.0.0.1");
      let s = "";
      c.on("data", (d) => (s += d.toString()));
      c.on("end", () => resolve(s));
      c.on("error", reject);
    });
    expect(got).toBe("from a\n");
    const fromB = await run(b, `exec 3<>/dev/tcp/127.0.0.1/${port} && echo CONNECTED`);
    expect(fromB.stdout).not.toMatch(/CONNECTED/);
    listener.kill("SIGKILL");
  });

  it("lets a box reach the server ports it was given, and no others", async () => {
    const open = async (): Promise<number> => {
      const srv = createServer((s) => s.end("server\n"));
      servers.push(srv);
      await new Promise<void>((r) => srv.listen(0, "127.0.0.1", () => r()));
      return (srv.address() as { port: number }).port;
    };
    const given = await open();
    const other = await open();
    await a.reachOut(given);
    expect((await run(a, `exec 3<>/dev/tcp/127.0.0.1/${given} && cat <&3`)).stdout).toBe("server\n");
    expect((await run(a, `exec 3<>/dev/tcp/127.0.0.1/${other} && echo CONNECTED`)).stdout).not.toMatch(/CONNECTED/);
    expect((await run(b, `exec 3<>/dev/tcp/127.0.0.1/${given} && echo CONNECTED`)).stdout).not.toMatch(/CONNECTED/);
  });

  it("limits the box's processes", async () => {
    const r = await run(a, "grep 'Max processes' /proc/self/limits");
    expect(r.stdout).toMatch(/Max processes\s+64\s+64/);
    const bomb = await run(a, "for i in $(seq 200); do sleep 5 & done 2>&1 | head -1; wait");
    expect(bomb.stdout + bomb.stderr).toMatch(/Resource temporarily unavailable|retry|fork/i);
  });

  it("close ends every process left in the box", async () => {
    const box = await driver.open("c", mkdtempSync(join(home, "sessions", "c-")));
    const child = box.spawn({ file: "bash", args: ["-c", "sleep 60 & sleep 60"], cwd: box.workspace, env }, {});
    await new Promise((r) => child.once("spawn", r));
    const exited = new Promise((r) => child.once("exit", r));
    await box.close();
    await exited;
    const r = await runBounded("pgrep", ["-u", String(box.uid)], "/", env);
    expect(r.stdout).toBe("");
  });
});
