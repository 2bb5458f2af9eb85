import { describe, expect, it } from "vitest";
import { membershipInV2Format } from "../snapshot/v2-membership.ts";
import { utf8Bytes } from "../mvcc/bytes.ts";
import { decodeSnapshotMembership, encodeSnapshotMembership } from "./snapshot-membership.ts";

describe("snapshot membership", () => {
  it("round-trips our form, uint64 ids and removed ids included", () => {
    const m = {
      members: [
        {
          id: 0xfedcba9876543210n,
          name: "m1",
          peerURLs: ["http://a:2380"],
          clientURLs: ["http://a:2379"],
          isLearner: false,
        },
        { id: 2n, name: "", peerURLs: ["http://b:2380"], clientURLs: [], isLearner: true },
      ],
      removed: [0xffffffffffffffffn],
    };
    expect(decodeSnapshotMembership(encodeSnapshotMembership(m))).toEqual(m);
  });

  it("reads the members of an older snapshot without removed ids", () => {
    const data = utf8Bytes('{"members":[{"id":"7","name":"x","peerURLs":["u"],"clientURLs":[],"isLearner":false}]}');
    expect(decodeSnapshotMembership(data)).toEqual({
      members: [{ id: 7n, name: "x", peerURLs: ["u"], clientURLs: [], isLearner: false }],
      removed: [],
    });
  });

  it("reads etcd's v2 store form, as `etcdutl snapshot restore` writes it", () => {
    const data = membershipInV2Format([
      { id: 0x8e9e05c52164694dn, peerURLs: ["http://127.0.0.1:2380"] },
      { id: 0x1n, peerURLs: ["http://127.0.0.1:2381", "http://127.0.0.1:2382"] },
    ]);
    expect(decodeSnapshotMembership(data)).toEqual({
      members: [
        {
          id: 1n,
          name: "",
          peerURLs: ["http://127.0.0.1:2381", "http://127.0.0.1:2382"],
          clientURLs: [],
          isLearner: false,
        },
        { id: 0x8e9e05c52164694dn, name: "", peerURLs: ["http://127.0.0.1:2380"], clientURLs: [], isLearner: false },
      ],
      removed: [],
    });
  });

  it("reads attributes and removed members from a v2 store tree", () => {
    const node = (value: string) => ({ Value: value, Children: null });
    const tree = {
      Root: {
        Children: {
          "0": {
            Children: {
              members: {
                Children: {
                  a: {
                    Children: {
                      raftAttributes: node('{"peerURLs":["http://p"],"isLearner":true}'),
                      attributes: node('{"name":"n","clientURLs":["http://c"]}'),
                    },
                  },
                },
              },
              removed_members: { Children: { b: node("removed") } },
            },
          },
        },
      },
    };
    expect(decodeSnapshotMembership(utf8Bytes(JSON.stringify(tree)))).toEqual({
      members: [{ id: 10n, name: "n", peerURLs: ["http://p"], clientURLs: ["http://c"], isLearner: true }],
      removed: [11n],
    });
  });

  it("says undefined for data that holds no membership", () => {
    for (const text of ["", "not json", "[]", '{"x":1}', '{"members":[{"id":"zz"}]}']) {
      expect(decodeSnapshotMembership(utf8Bytes(text)), text).toBeUndefined();
    }
  });
});
