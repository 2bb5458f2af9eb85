import { describe, expect, it } from "vitest";
import { goFormatFloatG, marshalYaml, naturalCompare } from "./yaml.ts";

describe("marshalYaml (sigs.k8s.io/yaml over go-yaml v2)", () => {
  it("quotes, folds and orders keys as kubectl 1.32 prints a ConfigMap", () => {
    const long = Array.from({ length: 40 }, () => "word").join(" ");
    const data = {
      a: long,
      b: "x: y",
      c: "123",
      d: "l1\nl2",
      e: "l1\nl2\n",
      f: " lead",
      g: "-x",
      h: "true",
      i: "",
      j: "a#b",
      k: "a #b",
      m: "~",
      n: "null",
      o: "y",
      p: "*x",
      q: "it's",
      r: "0x1F",
      t: "trail ",
      u: "  l1\nl2",
      v: "x\ttab",
      w: "é",
      z: "08",
      d1: "2024-01-02",
      a10: "1",
      a2: "1",
      "a-b": "1",
      aB: "1",
      Zb: "1",
      em: "😀",
    };
    const out = marshalYaml({
      apiVersion: "v1",
      data,
      kind: "ConfigMap",
      metadata: { creationTimestamp: null, name: "x" },
    });
    expect(out).toBe(`apiVersion: v1
data:
  Zb: "1"
  a: word word word word word word word word word word word word word word word word
    word word word word word word word word word word word word word word word word
    word word word word word word word word
  a-b: "1"
  a2: "1"
  a10: "1"
  aB: "1"
  b: 'x: y'
  c: "123"
  d: |-
    l1
    l2
  d1: "2024-01-02"
  e: |
    l1
    l2
  em: "\\U0001F600"
  f: ' lead'
  g: -x
  h: "true"
  i: ""
  j: a#b
  k: 'a #b'
  m: "~"
  "n": "null"
  o: "y"
  p: '*x'
  q: it's
  r: "0x1F"
  t: 'trail '
  u: |2-
      l1
    l2
  v: "x\\ttab"
  w: é
  z: "08"
kind: ConfigMap
metadata:
  creationTimestamp: null
  name: x
`);
  });

  it("lays out sequences unindented under their key, empty collections in flow style", () => {
    expect(marshalYaml({ items: [{ a: 1, b: [1, 2] }, [3, [4]]], e: {}, l: [], n: null, f: 1.5, t: true })).toBe(
      'e: {}\nf: 1.5\nitems:\n- a: 1\n  b:\n  - 1\n  - 2\n- - 3\n  - - 4\nl: []\n"n": null\nt: true\n',
    );
  });

  it("sorts digit runs as numbers and non-letters before letters", () => {
    expect(["a10", "a2", "aB", "a-b", "Zb"].sort(naturalCompare)).toEqual(["Zb", "a-b", "a2", "a10", "aB"]);
  });

  it("formats floats as strconv.FormatFloat(f, 'g', -1, 64)", () => {
    expect(goFormatFloatG(1.5)).toBe("1.5");
    expect(goFormatFloatG(1234567.5)).toBe("1.2345675e+06");
    expect(goFormatFloatG(0.00001)).toBe("1e-05");
  });
});
