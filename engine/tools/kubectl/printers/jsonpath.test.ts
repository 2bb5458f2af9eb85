import { describe, expect, it } from "vitest";
import { JsonPath, JsonPathError } from "./jsonpath.ts";

const cm = {
  apiVersion: "v1",
  data: { a: "b", c: "d" },
  kind: "ConfigMap",
  metadata: { creationTimestamp: null, name: "x" },
};
const list = {
  items: [
    { metadata: { name: "p1" }, status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] } },
    { metadata: { name: "p2" }, status: { phase: "Pending", conditions: [{ type: "Ready", status: "False" }] } },
  ],
};

const run = (t: string, data: object = cm) => new JsonPath(t).execute(data as never);

describe("JsonPath (client-go's template language, as kubectl runs it)", () => {
  it("prints fields, maps as JSON, null, and a space between an action's results", () => {
    expect(run("{.data}")).toBe('{"a":"b","c":"d"}');
    expect(run("{.metadata.creationTimestamp}{.data.a} {.data.*}")).toBe("nullb b d");
    expect(run("{.nope}")).toBe("");
    expect(run("{$.kind}")).toBe("ConfigMap");
    expect(run("{.data['a']}")).toBe("b");
  });

  it("ranges, filters and recursive descent", () => {
    expect(run('{range .items[*]}{.metadata.name}{"\\t"}{.status.phase}{"\\n"}{end}', list)).toBe(
      "p1\tRunning\np2\tPending\n",
    );
    expect(run('{.items[?(@.status.phase=="Running")].metadata.name}', list)).toBe("p1");
    expect(run('{.items[*].status.conditions[?(@.type=="Ready")].status}', list)).toBe("True False");
    expect(run("{..name}", list)).toBe("p1 p2");
    expect(run("{.items[-1:].metadata.name}", list)).toBe("p2");
  });

  it("jsonpath-as-json prints each action's results as an indented JSON array", () => {
    expect(new JsonPath("{.data}", true).execute(cm as never)).toBe(
      '[\n    {\n        "a": "b",\n        "c": "d"\n    }\n]\n',
    );
  });

  it("has client-go's parse and execution errors", () => {
    expect(() => new JsonPath("{.data")).toThrow(new JsonPathError("unclosed action"));
    expect(() => new JsonPath("{!}")).toThrow(new JsonPathError("unrecognized character in action: U+0021 '!'"));
    expect(() => run("{end}")).toThrow(new JsonPathError("not in range, nothing to end"));
    expect(() => run("x{foo}")).toThrow(new JsonPathError("unrecognized identifier foo"));
    expect(() => run("{.data[0]}")).toThrow(new JsonPathError("map[string]interface {} is not array or slice"));
    expect(() => run('{.data[?(@.x=="y")]}')).toThrow(
      new JsonPathError("map[a:b c:d] is not array or slice and cannot be filtered"),
    );
  });
});
