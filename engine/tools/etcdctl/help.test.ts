// Every etcdctl command answers --help with its own screen: the whole tree is walked in-process, and for the
// commands etcdctl 3.4 also has, the NAME line (whitespace aside — 3.4 indents with a tab) equals the real
// binary's.

import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import type { Command } from "../cobra/command.ts";
import { memoryIo, requireBinary } from "../cobra/testing.ts";
import { newRootCommand, runEtcdctl } from "./ctl.ts";
import { Ctl } from "./global.ts";

const realEtcdctl = "/usr/bin/etcdctl";
const haveReal = requireBinary(realEtcdctl, "Debian etcd-client 3.4 (etcdctl)");

/** leaves lists the command paths a learner can run (`member add`, `get`, ...), as etcdctl's help lists them. */
function leaves(cmd: Command, path: string[] = []): string[][] {
  const out: string[][] = [];
  for (const c of cmd.commands()) {
    if (!c.isAvailableCommand()) continue;
    const p = [...path, c.name()];
    if (c.hasSubCommands()) out.push(...leaves(c, p));
    else out.push(p);
  }
  return out;
}

/** real34 runs etcdctl 3.4; a command it lacks prints the root help, which the caller detects. */
function real34(args: string[]): string {
  try {
    return execFileSync(realEtcdctl, args, { env: { ETCDCTL_API: "3", PATH: "/usr/bin:/bin" }, encoding: "utf8" });
  } catch (e) {
    return String((e as { stdout?: string }).stdout ?? "");
  }
}

const squash = (s: string) => s.replace(/\s+/g, " ").trim();

/** differs are the commands whose 3.4 screen differs by design (rows of docs/etcdctl.md's differences table). */
const differs = new Map([["completion", "completion-command"]]);

describe("every command's --help", () => {
  const paths = leaves(newRootCommand(new Ctl(memoryIo())));

  it("lists the whole tree", () => {
    expect(paths.map((p) => p.join(" "))).toContain("member add");
    expect(paths.length).toBeGreaterThanOrEqual(50);
  });

  it("prints the command's own NAME and USAGE and exits 0", async () => {
    for (const p of paths) {
      const io = memoryIo();
      const code = await runEtcdctl(io, [...p, "--help"]);
      const name = p.join(" ");
      expect(code, name).toBe(0);
      expect(io.err(), name).toBe("");
      const lines = io.out().split("\n");
      expect(lines[0], name).toBe("NAME:");
      expect(lines[1], name).toMatch(new RegExp(`^  ${name} - \\S`));
      expect(lines[3], name).toBe("USAGE:");
      expect(lines[4], name).toMatch(new RegExp(`^  etcdctl ${name}\\b`));
    }
  });

  it.skipIf(!haveReal)(
    "has etcdctl 3.4's NAME line for the commands 3.4 also has",
    async () => {
      let compared = 0;
      for (const p of paths) {
        const real = real34([...p, "--help"]).split("\n");
        if (!squash(real[1] ?? "").startsWith(`${p.join(" ")} -`)) continue; // not a 3.4 command
        if (differs.has(p.join(" "))) continue;
        const io = memoryIo();
        await runEtcdctl(io, [...p, "--help"]);
        expect(squash(io.out().split("\n")[1] ?? ""), p.join(" ")).toBe(squash(real[1] ?? ""));
        compared++;
      }
      expect(compared).toBeGreaterThanOrEqual(40);
    },
    60_000,
  );
});
