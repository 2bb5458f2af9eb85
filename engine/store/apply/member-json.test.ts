import { describe, expect, it } from "vitest";
import { utf8String } from "../mvcc/bytes.ts";
import {
  decodeConfigChangeContext,
  decodeMember,
  encodeConfigChangeContext,
  encodeMember,
  memberKey,
} from "./member-json.ts";

describe("member JSON (etcd's membership.Member)", () => {
  const m = {
    id: 16172938551619453778n,
    name: "m1",
    peerURLs: ["http://127.0.0.1:2380"],
    clientURLs: ["http://127.0.0.1:2379"],
    isLearner: false,
  };

  it("writes etcd's field order with the id as a bare uint64 and omits empty attributes", () => {
    expect(utf8String(encodeMember(m))).toBe(
      '{"id":16172938551619453778,"peerURLs":["http://127.0.0.1:2380"],"name":"m1","clientURLs":["http://127.0.0.1:2379"]}',
    );
    expect(utf8String(encodeMember({ ...m, name: "", clientURLs: [], isLearner: true }))).toBe(
      '{"id":16172938551619453778,"peerURLs":["http://127.0.0.1:2380"],"isLearner":true}',
    );
    expect(utf8String(memberKey(m.id))).toBe("e071d1ecbf7f8352");
  });

  it("reads ids above 2^53 exactly, and round-trips config change contexts", () => {
    expect(decodeMember(encodeMember(m))).toEqual(m);
    const ctx = encodeConfigChangeContext({ member: { ...m, isLearner: true }, isPromote: true });
    expect(utf8String(ctx).endsWith(',"isPromote":true}')).toBe(true);
    expect(decodeConfigChangeContext(ctx)).toEqual({ member: { ...m, isLearner: true }, isPromote: true });
  });
});
