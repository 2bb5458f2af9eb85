import { describe, expect, it } from "vitest";
import { normalize } from "./normalize.ts";

describe("normalize", () => {
  it("hides ages, uids, resourceVersions, timestamps and klog headers", () => {
    const out = normalize(
      [
        "NAME   DATA   AGE",
        "x-zr   1      3h4m",
        '  resourceVersion: "123"',
        "  uid: 0c8b35b9-2255-4c8b-b4fc-f05fed5fb2e4",
        '  creationTimestamp: "2026-12-02T00:11:35Z"',
        'E1202 00:16:04.968573   14560 memcache.go:265] "Unhandled Error"',
      ].join("\n"),
    );
    expect(out).toBe(
      [
        "NAME   DATA   AGE",
        "x-zX   1      <age>",
        '  resourceVersion: "<rv>"',
        "  uid: <uid>",
        '  creationTimestamp: "<time>"',
        'E<klog> memcache.go:265] "Unhandled Error"',
      ].join("\n"),
    );
  });
});
