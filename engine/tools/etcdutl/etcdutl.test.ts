import { copyFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LmdbBackend, KvStore, snapshotStatus } from "../../store/offline.ts";
import { TempDirs, etcdutl, populatedSnapshot } from "./test-fixtures.ts";

const tmp = new TempDirs();
afterEach(() => tmp.removeAll());

describe("etcdutl command line", () => {
  it("prints cobra's default usage for the root, `help` and --help", async () => {
    const want = `Usage:
  etcdutl [command]

Available Commands:
  completion  Generate completion script
  defrag      Defragments the storage of the etcd
  hashkv      Prints the KV history hash of a given file
  help        Help about any command
  migrate     Migrates schema of etcd data dir files to make them compatible with different etcd version
  snapshot    Manages etcd node snapshots
  version     Prints the version of etcdutl

Flags:
  -h, --help               help for etcdutl
  -w, --write-out string   set the output format (fields, json, protobuf, simple, table) (default "simple")

Use "etcdutl [command] --help" for more information about a command.
`;
    for (const args of [[], ["--help"], ["help"], ["-h"]]) {
      expect(await etcdutl(...args)).toEqual({ code: 0, out: want, err: "" });
    }
  });

  it("shows a subcommand's usage with its flags and the global flag", async () => {
    const r = await etcdutl("snapshot", "restore", "--help");
    expect(r.code).toBe(0);
    expect(r.out).toBe(`Usage:
  etcdutl snapshot restore <filename> --data-dir {output dir} [options] [flags]

Flags:
      --bump-revision uint                   How much to increase the latest revision after restore
      --data-dir string                      Path to the output data directory
  -h, --help                                 help for restore
      --initial-advertise-peer-urls string   List of this member's peer URLs to advertise to the rest of the cluster (default "http://localhost:2380")
      --initial-cluster string               Initial cluster configuration for restore bootstrap (default "default=http://localhost:2380")
      --initial-cluster-token string         Initial cluster token for the etcd cluster during restore bootstrap (default "etcd-cluster")
      --initial-memory-map-size uint         Initial memory map size of the database in bytes. It uses the default value if not defined or defined to 0 (default 10737418240)
      --mark-compacted                       Mark the latest revision after restore as the point of scheduled compaction (required if --bump-revision > 0, disallowed otherwise)
      --name string                          Human-readable name for this member (default "default")
      --skip-hash-check                      Ignore snapshot integrity hash value (required if copied from data directory)
      --wal-dir string                       Path to the WAL directory (use --data-dir if none given)

Global Flags:
  -w, --write-out string   set the output format (fields, json, protobuf, simple, table) (default "simple")
`);
  });

  it("prints its version", async () => {
    expect(await etcdutl("version")).toEqual({ code: 0, out: "etcdutl version: 3.6.14\nAPI version: 3.6\n", err: "" });
    // prefix matching is on
    expect((await etcdutl("vers")).out).toBe("etcdutl version: 3.6.14\nAPI version: 3.6\n");
  });

  it("prints errors that cobra returns twice: once by cobra, once by main", async () => {
    const r = await etcdutl("snapshots");
    expect(r.code).toBe(1);
    const msg = 'Error: unknown command "snapshots" for "etcdutl"\n\nDid you mean this?\n\tsnapshot\n\n';
    expect(r.err).toBe(`${msg}Run 'etcdutl --help' for usage.\n${msg}`);
    const flag = await etcdutl("version", "--nope");
    expect(flag.code).toBe(1);
    expect(flag.err).toMatch(
      /^Error: unknown flag: --nope\nUsage:\n {2}etcdutl version \[flags\]\n[\s\S]*\n\nError: unknown flag: --nope\n$/,
    );
    const required = await etcdutl("defrag");
    expect(required.err.split("\n")[0]).toBe('Error: required flag(s) "data-dir" not set');
    expect(required.err.endsWith('\nError: required flag(s) "data-dir" not set\n')).toBe(true);
  });
});

describe("etcdutl snapshot status", () => {
  it("prints hash, revision, live keys, size and version in every format", async () => {
    const { snapPath } = await populatedSnapshot(tmp.make());
    const st = snapshotStatus(snapPath);
    const hex = st.hash.toString(16);
    expect(await etcdutl("snapshot", "status", snapPath)).toEqual({
      code: 0,
      out: `${hex}, 7, 3, ${Math.round(st.totalSize / 1000)} kB, 3.6.0\n`,
      err: "",
    });
    expect((await etcdutl("snapshot", "status", snapPath, "-w", "json")).out).toBe(
      `{"hash":${st.hash},"revision":7,"totalKey":3,"totalSize":${st.totalSize},"version":"3.6.0"}\n`,
    );
    expect((await etcdutl("snapshot", "status", snapPath, "-w", "fields")).out).toBe(
      `"Hash" : ${st.hash}\n"Revision" : 7\n"Keys" : 3\n"Size" : ${st.totalSize}\n"Version" : 3.6.0\n`,
    );
    const table = (await etcdutl("snapshot", "status", snapPath, "-w", "table")).out.split("\n");
    expect(table[1]).toMatch(/^\| +HASH +\| REVISION \| TOTAL KEYS \| TOTAL SIZE \| VERSION \|$/);
    expect(table[3]).toMatch(new RegExp(`^\\| ${hex} \\| +7 \\| +3 \\| +\\d+ kB \\| +3\\.6\\.0 \\|$`));
    expect(await etcdutl("snapshot", "status", snapPath, "-w", "protobuf")).toEqual({
      code: 4,
      out: "",
      err: `Error: marshal unsupported for type snapshot.Status ({${st.hash} 7 3 ${st.totalSize} 3.6.0})\n`,
    });
    expect(await etcdutl("snapshot", "status", snapPath, "-w", "yaml")).toEqual({
      code: 4,
      out: "",
      err: "Error: unsupported output format\n",
    });
  });

  it("fails with etcd's texts and exit codes", async () => {
    const dir = tmp.make();
    expect(await etcdutl("snapshot", "status")).toEqual({
      code: 128,
      out: "",
      err: "Error: snapshot status requires exactly one argument\n",
    });
    expect(await etcdutl("snapshot", "status", join(dir, "none.db"))).toEqual({
      code: 1,
      out: "",
      err: `Error: stat ${join(dir, "none.db")}: no such file or directory\n`,
    });
    writeFileSync(join(dir, "garbage.db"), Buffer.alloc(20000, 7));
    expect((await etcdutl("snapshot", "status", join(dir, "garbage.db"))).err).toBe("Error: invalid database\n");
  });
});

describe("etcdutl hashkv", () => {
  it("hashes the key space of a db file as the server's HashKV does, at the latest or a given revision", async () => {
    const dir = tmp.make();
    const { dbPath, snapPath } = await populatedSnapshot(dir);
    const copy = join(dir, "check.db");
    copyFileSync(dbPath, copy);
    const backend = LmdbBackend.open({ path: copy });
    const store = new KvStore({ backend });
    const at = (rev: number) => {
      const r = store.hashByRev(rev);
      if ("internal" in r) throw new Error(r.internal);
      return r.hash.hash;
    };
    const latest = at(0);
    const atRev4 = at(4);
    backend.close();
    expect(latest).not.toBe(atRev4);
    expect(await etcdutl("hashkv", dbPath)).toEqual({ code: 0, out: `${latest}, 7, -1\n`, err: "" });
    // a snapshot file (with its trailer) hashes the same as the db it was taken from
    expect((await etcdutl("hashkv", snapPath)).out).toBe(`${latest}, 7, -1\n`);
    expect((await etcdutl("hashkv", dbPath, "--rev", "4", "-w", "json")).out).toBe(
      `{"hash":${atRev4},"hashRevision":4,"compactRevision":-1}\n`,
    );
    expect((await etcdutl("hashkv", dbPath, "-w", "fields")).out).toBe(
      `"Hash" : ${latest}\n"Hash revision" : 7\n"Compact revision" : -1\n`,
    );
    expect(await etcdutl("hashkv", dbPath, "--rev", "99")).toEqual({
      code: 1,
      out: "",
      err: "Error: mvcc: required revision is a future revision\n",
    });
    expect((await etcdutl("hashkv", join(dir, "nope"))).err).toBe(
      `Error: stat ${join(dir, "nope")}: no such file or directory\n`,
    );
  });
});
