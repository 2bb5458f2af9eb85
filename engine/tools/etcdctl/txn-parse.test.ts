// The txn grammar and watch argument handling against etcd's behaviour (txn.txt, watch.txt captures and
// etcd 3.6's txn_command.go / watch_command.go).

import { describe, expect, it } from "vitest";
import * as pb from "../../store/proto/gen/etcdserverpb.ts";
import { parseWatchArgs, watchErr, watchRequest } from "./command/watch.ts";
import { argify, parseCompare, scanCompareOperands } from "./txn-parse.ts";

const dec = new TextDecoder();

describe("ParseCompare", () => {
  it("reads Sscanf's %q) %s %q", () => {
    expect(scanCompareOperands('"user1") = "bad"')).toEqual({ n: 3, key: "user1", op: "=", val: "bad" });
    expect(scanCompareOperands('"k") > "0" trailing')).toEqual({ n: 3, key: "k", op: ">", val: "0" });
    expect(scanCompareOperands("user1) = bad")).toEqual({ n: 0, key: "", op: "", val: "" });
    expect(scanCompareOperands('"a b") != `raw`')).toEqual({ n: 3, key: "a b", op: "!=", val: "raw" });
    expect(scanCompareOperands('"k")= "v"')).toMatchObject({ n: 1 });
    expect(scanCompareOperands('"k") =')).toMatchObject({ n: 2, op: "=" });
  });

  it("builds compares for every target", () => {
    const c = (line: string) => {
      const r = parseCompare(line);
      if (!("cmp" in r)) throw new Error(JSON.stringify(r));
      return r.cmp;
    };
    expect(c('mod("cas") = "81"')).toMatchObject({
      target: pb.Compare_CompareTarget.MOD,
      result: pb.Compare_CompareResult.EQUAL,
      modRevision: 81,
    });
    expect(c('create("lockkey") = "0"')).toMatchObject({ target: pb.Compare_CompareTarget.CREATE, createRevision: 0 });
    expect(c('ver("k") > "1"')).toMatchObject({
      target: pb.Compare_CompareTarget.VERSION,
      result: pb.Compare_CompareResult.GREATER,
      version: 1,
    });
    const v = c('value("lockkey") != "owner-b"');
    expect(v.result).toBe(pb.Compare_CompareResult.NOT_EQUAL);
    expect(dec.decode(v.value)).toBe("owner-b");
    expect(dec.decode(v.key)).toBe("lockkey");
  });

  it("reports etcd's errors and panics", () => {
    expect(parseCompare("value(user1) = bad")).toEqual({
      error: 'malformed comparison: value(user1) = bad; got value("")  ""',
    });
    expect(parseCompare('mod("user1") > "abc"')).toEqual({
      error: 'invalid txn compare request: mod("user1") > "abc"',
    });
    // 3.6 accepts val(...) as value(...) (3.4 silently evaluated it as FAILURE); other names are errors.
    expect(parseCompare('val("user1") = "bad"')).toMatchObject({ cmp: { target: pb.Compare_CompareTarget.VALUE } });
    expect(parseCompare('vaule("user1") = "bad"')).toEqual({
      error: 'malformed comparison: vaule("user1") = "bad" (unknown target vaule)',
    });
    expect(parseCompare("nothing")).toEqual({ error: "malformed comparison: nothing" });
    expect(parseCompare('value("user1") == "bad"')).toMatchObject({ panic: "Unknown result op" });
    expect(parseCompare('lease("k") = "0"')).toMatchObject({ panic: "bad value" });
  });
});

describe("Argify", () => {
  it("splits like etcdctl", () => {
    expect(argify(`put key1 "overwrote-key1"`)).toEqual({ args: ["put", "key1", "overwrote-key1"] });
    expect(argify(`put k 'single quoted' "a\\"b"`)).toEqual({ args: ["put", "k", "single quoted", 'a"b'] });
    expect(argify("get /t/ --prefix")).toEqual({ args: ["get", "/t/", "--prefix"] });
  });
});

describe("watch arguments", () => {
  it("separates the exec command after --", () => {
    expect(
      parseWatchArgs(["etcdctl", "watch", "wk", "--", "sh", "-c", "env"], ["wk", "sh", "-c", "env"], "", "", false),
    ).toEqual({
      watchArgs: ["wk"],
      execArgs: ["sh", "-c", "env"],
    });
    expect(parseWatchArgs(["etcdctl", "watch", "foo", "bar"], ["foo", "bar"], "", "", false)).toEqual({
      watchArgs: ["foo", "bar"],
      execArgs: [],
    });
  });

  it("rejects what etcd rejects", () => {
    expect(() => parseWatchArgs(["etcdctl", "watch"], [], "", "", false)).toThrow("bad number of arguments");
    expect(() => parseWatchArgs(["etcdctl", "watch", "foo", "--"], ["foo"], "", "", false)).toThrow(
      "found separator --, but no commands",
    );
    expect(() => parseWatchArgs(["etcdctl", "watch", "foo"], ["foo"], "envkey", "", false)).toThrow(
      "found conflicting environment key",
    );
  });

  it("uses ETCDCTL_WATCH_KEY/RANGE_END", () => {
    expect(parseWatchArgs(["etcdctl", "watch"], [], "k1", "k9", false)).toEqual({
      watchArgs: ["k1", "k9"],
      execArgs: [],
    });
    expect(parseWatchArgs(["etcdctl", "watch", "--", "echo", "x"], ["echo", "x"], "foo", "", false)).toEqual({
      watchArgs: ["foo"],
      execArgs: ["echo", "x"],
    });
  });

  it("parses interactive lines with their own flags", () => {
    const r = parseWatchArgs(["etcdctl", "watch", "-i"], ["watch", "/w/", "--prefix", "--rev", "5"], "", "", true);
    expect(r.watchArgs).toEqual(["/w/"]);
    expect(r.opts).toEqual({ rev: 5, prefix: true, prevKv: false, progressNotify: false });
    expect(() => parseWatchArgs(["etcdctl"], ["get", "x"], "", "", true)).toThrow(
      "args[0] must be 'watch' for interactive calls",
    );
  });

  it("builds the watch request and error texts", () => {
    const r = watchRequest(["/w/"], { rev: 0, prefix: true, prevKv: true, progressNotify: false });
    expect(dec.decode(r.rangeEnd)).toBe("/w0");
    expect(r.prevKv).toBe(true);
    expect(() => watchRequest(["a", "b"], { rev: 0, prefix: true, prevKv: false, progressNotify: false })).toThrow(
      "mutually exclusive",
    );
    const base = { header: pb.ResponseHeader.create(), events: [], created: false, cancelReason: "" };
    expect(watchErr({ ...base, compactRevision: 125, canceled: true })).toBe(
      "etcdserver: mvcc: required revision has been compacted",
    );
    expect(watchErr({ ...base, compactRevision: 0, canceled: true, cancelReason: "etcdserver: no leader" })).toBe(
      "etcdserver: no leader",
    );
  });
});
