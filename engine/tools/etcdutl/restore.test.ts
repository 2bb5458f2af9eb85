import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { dataDirLayout, lockDir, restartMemberStorage, utf8String, ErrCompacted } from "../../store/offline.ts";
import { TempDirs, etcdutl, openMember, populatedSnapshot, stripTimes } from "./test-fixtures.ts";
import { membershipInV2Format } from "../../store/offline.ts";

const tmp = new TempDirs();
afterEach(() => tmp.removeAll());

describe("etcdutl snapshot restore", () => {
  it("restores a one-member cluster with etcd's default ids, log lines and data dir", async () => {
    const dir = tmp.make();
    const { snapPath } = await populatedSnapshot(dir);
    const out = join(dir, "restored");
    const r = await etcdutl("snapshot", "restore", snapPath, "--data-dir", out);
    expect(r.code).toBe(0);
    expect(r.out).toBe("");
    const where = `{"path": "${snapPath}", "wal-dir": "${out}/member/wal", "data-dir": "${out}", "snap-dir": "${out}/member/snap", "initial-memory-map-size": 10737418240}`;
    expect(stripTimes(r.err)).toBe(
      [
        `<TS>\tinfo\tsnapshot/v3_snapshot.go:305\trestoring snapshot\t${where}`,
        "<TS>\tinfo\tschema/membership.go:138\tTrimming membership information from the backend...",
        '<TS>\tinfo\tmembership/cluster.go:424\tadded member\t{"cluster-id": "cdf818194e3a8c32", "local-member-id": "0", "added-peer-id": "8e9e05c52164694d", "added-peer-peer-urls": ["http://localhost:2380"], "added-peer-is-learner": false}',
        `<TS>\tinfo\tsnapshot/v3_snapshot.go:333\trestored snapshot\t${where}`,
        "",
      ].join("\n"),
    );
    expect(readdirSync(join(out, "member", "snap")).sort()).toEqual(["0000000000000001-0000000000000001.snap", "db"]);
    expect(readdirSync(join(out, "member", "wal"))).toEqual(["0000000000000000-0000000000000000.wal"]);
    // The member restarts from what restore wrote: its identity, a hard state and a snapshot at index 1.
    const boot = restartMemberStorage(dataDirLayout(out));
    try {
      expect(boot.metadata).toEqual({ nodeId: 0x8e9e05c52164694dn, clusterId: 0xcdf818194e3a8c32n });
      expect(boot.hardState).toEqual({ term: 1, vote: 0x8e9e05c52164694dn, commit: 1 });
      expect(boot.snapshot?.metadata.index).toBe(1);
      expect(boot.snapshot?.metadata.confState.voters).toEqual([0x8e9e05c52164694dn]);
      expect(utf8String(boot.snapshot?.data ?? new Uint8Array())).toContain(
        '"raftAttributes":{"Path":"/0/members/8e9e05c52164694d/raftAttributes"',
      );
    } finally {
      boot.wal.close();
    }
    const { sm, backend } = openMember(join(out, "member", "snap", "db"));
    expect(sm.consistentIndex()).toEqual({ index: 1, term: 1 });
    expect(sm.membership.members()).toEqual([
      {
        id: 0x8e9e05c52164694dn,
        name: "default",
        peerURLs: ["http://localhost:2380"],
        clientURLs: [],
        isLearner: false,
      },
    ]);
    expect(sm.store.rev()).toBe(7);
    backend.close();

    // A second restore into the same place is refused, and so is a restore whose data dir is a file.
    const again = await etcdutl("snapshot", "restore", snapPath, "--data-dir", out);
    expect([again.code, again.err]).toEqual([1, `Error: data-dir "${out}" not empty or could not be read\n`]);
  });

  it("restores a member of a three-member cluster, with --bump-revision and --mark-compacted", async () => {
    const dir = tmp.make();
    const { snapPath } = await populatedSnapshot(dir);
    const out = join(dir, "m2.etcd");
    const cluster = "m1=http://127.0.0.1:2380,m2=http://127.0.0.1:22380,m3=http://127.0.0.1:32380";
    const r = await etcdutl(
      "snapshot",
      "restore",
      snapPath,
      "--name",
      "m2",
      "--initial-cluster",
      cluster,
      "--initial-cluster-token",
      "tok",
      "--initial-advertise-peer-urls",
      "http://127.0.0.1:22380",
      "--data-dir",
      out,
      "--bump-revision",
      "1000",
      "--mark-compacted",
    );
    expect(r.code).toBe(0);
    const lines = stripTimes(r.err).split("\n");
    expect(lines.slice(2, 4)).toEqual([
      '<TS>\tinfo\tsnapshot/v3_snapshot.go:396\tbumping latest revision\t{"latest-revision": 7, "bump-amount": 1000, "new-latest-revision": 1007}',
      '<TS>\tinfo\tsnapshot/v3_snapshot.go:413\tmarking revision compacted\t{"revision": 1007}',
    ]);
    const added = lines.filter((l) => l.includes("added member"));
    expect(added).toHaveLength(3);
    const ids = added.map((l) => /"added-peer-id": "([0-9a-f]+)"/.exec(l)?.[1] as string);
    expect([...ids].sort()).toEqual(ids);
    const boot = restartMemberStorage(dataDirLayout(out));
    boot.wal.close();
    expect(boot.snapshot?.metadata.confState.voters.map((v) => v.toString(16))).toEqual(ids);
    expect(boot.hardState.commit).toBe(3);
    const { sm, backend } = openMember(join(out, "member", "snap", "db"));
    expect(sm.consistentIndex()).toEqual({ index: 3, term: 1 });
    expect(sm.membership.members().map((m) => m.name)).toHaveLength(3);
    expect(sm.store.rev()).toBe(1007);
    expect(sm.store.range(new TextEncoder().encode("a"), undefined, { rev: 5 })).toBe(ErrCompacted);
    backend.close();
  });

  it("refuses bad arguments with etcd's texts", async () => {
    const dir = tmp.make();
    const { snapPath, dbPath } = await populatedSnapshot(dir);
    const run = async (...args: string[]) => {
      const r = await etcdutl("snapshot", "restore", ...args);
      return [
        r.code,
        stripTimes(r.err)
          .split("\n")
          .filter((l) => l.startsWith("Error"))[0],
      ];
    };
    expect(await run()).toEqual([128, "Error: snapshot restore requires exactly one argument"]);
    expect(await run(snapPath, "--bump-revision", "5", "--data-dir", join(dir, "a"))).toEqual([
      128,
      "Error: --mark-compacted required if --revision-bump > 0",
    ]);
    expect(await run(snapPath, "--name", "m1", "--data-dir", join(dir, "b"))).toEqual([
      1,
      'Error: couldn\'t find local name "m1" in the initial cluster configuration',
    ]);
    // localhost resolves to 127.0.0.1, so these two spellings of the same URL match.
    expect(
      await run(snapPath, "--initial-cluster", "default=http://127.0.0.1:2380", "--data-dir", join(dir, "c")),
    ).toEqual([0, undefined]);
    expect(
      await run(
        snapPath,
        "--initial-cluster",
        "default=http://127.0.0.1:2380",
        "--initial-advertise-peer-urls",
        "http://127.0.0.1:2381",
        "--data-dir",
        join(dir, "d"),
      ),
    ).toEqual([
      1,
      'Error: --initial-cluster has default=http://127.0.0.1:2380 but missing from --initial-advertise-peer-urls=http://127.0.0.1:2381 (resolved urls: "http://127.0.0.1:2381" != "http://127.0.0.1:2380")',
    ]);
    expect(
      await run(snapPath, "--initial-advertise-peer-urls", "localhost:2380", "--data-dir", join(dir, "e")),
    ).toEqual([1, "Error: URL scheme must be http, https, unix, or unixs: localhost:2380"]);
    expect(
      await run(snapPath, "--initial-cluster", "default=http://localhost:2380/x", "--data-dir", join(dir, "f")),
    ).toEqual([1, "Error: URL must not contain a path: http://localhost:2380/x"]);
    expect(
      await run(
        snapPath,
        "--initial-cluster",
        "default=http://localhost:2380,other=http://localhost:2380",
        "--data-dir",
        join(dir, "g"),
      ),
    ).toEqual([
      1,
      "Error: initial cluster default=http://localhost:2380,other=http://localhost:2380 has duplicate url",
    ]);
    // A db copied out of a data dir has no trailer: refused without --skip-hash-check, restored with it.
    expect(await run(dbPath, "--data-dir", join(dir, "h"))).toEqual([
      1,
      "Error: snapshot missing hash but --skip-hash-check=false",
    ]);
    expect((await etcdutl("snapshot", "restore", dbPath, "--skip-hash-check", "--data-dir", join(dir, "i"))).code).toBe(
      0,
    );
    expect(await run(join(dir, "none.db"), "--data-dir", join(dir, "j"))).toEqual([
      1,
      `Error: open ${join(dir, "none.db")}: no such file or directory`,
    ]);
    expect(existsSync(join(dir, "j"))).toBe(false);
    mkdirSync(join(dir, "wal"));
    expect(await run(snapPath, "--data-dir", join(dir, "k"), "--wal-dir", join(dir, "wal"))).toEqual([
      1,
      `Error: wal-dir "${join(dir, "wal")}" exists`,
    ]);
  });

  it("panics as etcd's backend does on a file that is not a database", async () => {
    const dir = tmp.make();
    writeFileSync(join(dir, "garbage.db"), Buffer.alloc(512 * 40 + 32, 7));
    const r = await etcdutl(
      "snapshot",
      "restore",
      join(dir, "garbage.db"),
      "--skip-hash-check",
      "--data-dir",
      join(dir, "x"),
    );
    expect(r.code).toBe(2);
    const lines = stripTimes(r.err).split("\n");
    expect(lines[1]).toBe(
      `<TS>\tpanic\tbackend/backend.go:205\tfailed to open database\t{"path": "${join(dir, "x", "member", "snap", "db")}", "error": "invalid database"}`,
    );
    expect(lines[2]).toBe("panic: failed to open database");
  });
});

describe("v2 store membership payload", () => {
  it("serialises the node tree, the event ring and the counters as Go's encoding/json does", () => {
    const json = JSON.parse(utf8String(membershipInV2Format([{ id: 0x10n, peerURLs: ["http://a:2380"] }]))) as {
      Root: { Children: Record<string, { Children: Record<string, unknown> | null }> };
      WatcherHub: { EventHistory: { Queue: { Events: unknown[]; Size: number; Back: number }; LastIndex: number } };
      CurrentIndex: number;
      Stats: Record<string, number>;
      CurrentVersion: number;
    };
    expect(Object.keys(json)).toEqual(["Root", "WatcherHub", "CurrentIndex", "Stats", "CurrentVersion"]);
    expect(Object.keys(json.Root.Children)).toEqual(["0", "1"]);
    expect(json.Root.Children["1"]?.Children).toEqual({});
    expect(json.WatcherHub.EventHistory.Queue.Events).toHaveLength(1000);
    expect(json.WatcherHub.EventHistory.Queue.Events[0]).toEqual({
      action: "create",
      node: {
        key: "/0/members/10/raftAttributes",
        value: '{"peerURLs":["http://a:2380"]}',
        modifiedIndex: 1,
        createdIndex: 1,
      },
    });
    expect(json.WatcherHub.EventHistory.Queue.Events[1]).toBeNull();
    expect([json.CurrentIndex, json.Stats["createSuccess"], json.CurrentVersion]).toEqual([1, 1, 2]);
  });
});

describe("etcdutl defrag", () => {
  it("defragments a stopped member's backend with the backend's log lines", async () => {
    const dir = tmp.make();
    await populatedSnapshot(dir);
    const r = await etcdutl("defrag", "--data-dir", dir);
    expect(r.code).toBe(0);
    const lines = stripTimes(r.err).split("\n");
    expect(lines[0]).toMatch(/^<TS>\tinfo\tbackend\/backend.go:522\tdefragmenting\t\{"path": ".*\/member\/snap\/db", /);
    expect(lines[1]).toMatch(/^<TS>\tinfo\tbackend\/backend.go:592\tfinished defragmenting directory\t/);
    expect(lines[2]).toBe("");
    const { sm, backend } = openMember(join(dir, "member", "snap", "db"));
    expect(sm.store.rev()).toBe(7);
    backend.close();
    expect(readdirSync(join(dir, "member", "snap")).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });

  it("waits for a running member to release the data dir, saying so after a second", async () => {
    const dir = tmp.make();
    await populatedSnapshot(dir);
    const lock = await lockDir(dir);
    const running = etcdutl("defrag", "--data-dir", dir);
    await new Promise((r) => setTimeout(r, 1500));
    await lock.release();
    const r = await running;
    expect(r.code).toBe(0);
    expect(r.err.split("\n")[0]).toBe(
      `waiting for etcd to close and release its lock on "${join(dir, "member", "snap", "db")}". To defrag a running etcd instance, use \`etcdctl defrag\` instead.`,
    );
  });

  it("fails on a data dir without a backend", async () => {
    const dir = tmp.make();
    expect(await etcdutl("defrag", "--data-dir", dir)).toEqual({
      code: 1,
      out: "",
      err: `Error: Failed to defragment etcd data[${dir}] (stat ${join(dir, "member", "snap", "db")}: no such file or directory)\n`,
    });
  });
});

describe("etcdutl migrate", () => {
  it("moves a restored data dir between storage versions 3.6 and 3.5", async () => {
    const dir = tmp.make();
    const { snapPath } = await populatedSnapshot(dir);
    const out = join(dir, "r");
    expect((await etcdutl("snapshot", "restore", snapPath, "--data-dir", out)).code).toBe(0);
    const run = async (...args: string[]) => {
      const r = await etcdutl("migrate", "--data-dir", out, ...args);
      return [r.code, stripTimes(r.err)];
    };
    expect(await run("--target-version", "3.6")).toEqual([
      0,
      '<TS>\tinfo\tetcdutl/migrate_command.go:139\tstorage version up-to-date\t{"storage-version": "3.6"}\n',
    ]);
    expect(await run("--target-version", "3.5")).toEqual([
      0,
      '<TS>\tinfo\tschema/migration.go:65\tupdated storage version\t{"new-storage-version": "3.5.0"}\n',
    ]);
    expect(await run("--target-version", "3.5")).toEqual([
      0,
      '<TS>\tinfo\tetcdutl/migrate_command.go:139\tstorage version up-to-date\t{"storage-version": "3.5"}\n',
    ]);
    expect(await run("--target-version", "3.6")).toEqual([
      0,
      '<TS>\tinfo\tschema/migration.go:65\tupdated storage version\t{"new-storage-version": "3.6.0"}\n',
    ]);
    expect(await run("--target-version", "3.7")).toEqual([
      1,
      'Error: cannot create migration plan: version "3.7.0" is not supported\n',
    ]);
    expect(await run("--target-version", "3.7", "--force")).toEqual([
      0,
      '<TS>\tinfo\tetcdutl/migrate_command.go:153\tnormal migrate failed, trying with force\t{"error": "cannot create migration plan: version \\"3.7.0\\" is not supported"}\n' +
        '<TS>\twarn\tetcdutl/migrate_command.go:169\tforcefully set storage version\t{"storage-version": "3.7"}\n',
    ]);
  });

  it("checks --target-version as etcd does", async () => {
    const dir = tmp.make();
    const run = async (v: string) => (await etcdutl("migrate", "--data-dir", dir, "--target-version", v)).err;
    expect(await run("3")).toBe('Error: wrong target version format, expected "X.Y", got "3"\n');
    expect(await run("3.4")).toBe('Error: target version "3.4" not supported. Minimal "3.5"\n');
    expect(await run("v3.6")).toBe(
      'Error: failed to parse target version: strconv.ParseInt: parsing "v3": invalid syntax\n',
    );
    expect(await run("3.6")).toBe(`Error: stat ${join(dir, "member", "snap", "db")}: no such file or directory\n`);
  });
});
