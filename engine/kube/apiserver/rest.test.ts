// The REST surface over HTTP: discovery and health endpoints, Table negotiation, subresources, dry runs,
// field validation, and bad requests answered with the apiserver's own Status (400/404/405/413/415/422),
// never an exception out of the server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiServer } from "./apiserver.ts";
import { etcdAvailable, startCluster, type TestCluster } from "./testdata/etcd-cluster.ts";

let cluster: TestCluster;
let server: ApiServer;

async function call(
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<{ code: number; text: string; json: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(server.url + path, {
    method,
    headers: { "Content-Type": "application/json", ...headers },
    ...(body !== undefined ? { body } : {}),
  });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // not JSON (text/plain answers)
  }
  return { code: res.status, text, json, headers: res.headers };
}

const deployment = (name: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "nginx" }] } },
      ...extra,
    },
  });

describe.skipIf(!etcdAvailable())("REST", { timeout: 30_000 }, () => {
  beforeAll(async () => {
    cluster = await startCluster(1);
    server = await ApiServer.start({ etcd: cluster.client, compactionIntervalMs: 0 });
    await call(
      "POST",
      "/api/v1/namespaces",
      JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: "default" } }),
    );
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await cluster?.destroy();
  });

  it("health, version, discovery", async () => {
    for (const p of ["/healthz", "/livez", "/readyz"]) expect((await call("GET", p)).text).toBe("ok");
    expect((await call("GET", "/version")).json["gitVersion"]).toBe("v1.32.4");
    const api = await call("GET", "/api/v1");
    const pods = (api.json["resources"] as { name: string; shortNames?: string[] }[]).find((r) => r.name === "pods");
    expect(pods?.shortNames).toEqual(["po"]);
    const agg = await call("GET", "/apis", undefined, {
      Accept: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json",
    });
    expect(agg.headers.get("content-type")).toBe(
      "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
    );
    expect((agg.json["items"] as { metadata: { name: string } }[]).map((i) => i.metadata.name)).toContain("apps");
    const nf = await call("GET", "/apis/nope.example.com/v1/things");
    expect([nf.code, nf.text]).toEqual([404, "404 page not found\n"]);
  });

  it("bad bodies answer the apiserver's 400, 415 and 413", async () => {
    const bad = await call("POST", "/api/v1/namespaces/default/configmaps", "xx");
    expect([bad.code, bad.json["message"], bad.json["reason"]]).toEqual([
      400,
      "couldn't get version/kind; json parse error: invalid character 'x' looking for beginning of value",
      "BadRequest",
    ]);
    const noKind = await call("POST", "/api/v1/namespaces/default/configmaps", '{"metadata":{"name":"a"}}');
    expect(noKind.json["message"]).toBe(`Object 'Kind' is missing in '{"metadata":{"name":"a"}}'`);
    const wrongVersion = await call("POST", "/api/v1/namespaces/default/configmaps", deployment("d"));
    expect(wrongVersion.json["message"]).toBe(
      "the API version in the data (apps/v1) does not match the expected API version (v1)",
    );
    const media = await call("POST", "/api/v1/namespaces/default/configmaps", "a: b", { "Content-Type": "text/plain" });
    expect([media.code, media.json["reason"]]).toEqual([415, "UnsupportedMediaType"]);
    const patchMedia = await call("PATCH", "/api/v1/namespaces/default/configmaps/x", "{}", {
      "Content-Type": "text/plain",
    });
    expect([patchMedia.code, patchMedia.json["reason"]]).toEqual([415, "UnsupportedMediaType"]);
    const big = await call("POST", "/api/v1/namespaces/default/configmaps", "x".repeat(3 * 1024 * 1024 + 10));
    expect(big.code).toBe(413);
    const del = await call("DELETE", "/api/v1/namespaces/default/configmaps/x", "{bad");
    expect(del.code).toBe(400);
    const notAllowed = await call("PUT", "/api/v1/namespaces/default/configmaps", "{}");
    expect([notAllowed.code, notAllowed.json["reason"]]).toEqual([405, "MethodNotAllowed"]);
  });

  it("fieldValidation: Strict rejects unknown fields, Warn drops them with a Warning; wrong types are 400", async () => {
    const strict = await call(
      "POST",
      "/apis/apps/v1/namespaces/default/deployments?fieldValidation=Strict",
      deployment("s", { foo: 1 }),
    );
    expect([strict.code, strict.json["message"]]).toEqual([
      400,
      'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.foo"',
    ]);
    const warn = await call(
      "POST",
      "/apis/apps/v1/namespaces/default/deployments?fieldValidation=Warn",
      deployment("w", { foo: 1 }),
    );
    expect(warn.code).toBe(201);
    expect(warn.headers.get("warning")).toBe('299 - "unknown field \\"spec.foo\\""');
    const typed = await call(
      "POST",
      "/apis/apps/v1/namespaces/default/deployments",
      deployment("t").replace('"replicas":1', '"replicas":"one"'),
    );
    expect(typed.code).toBe(400);
    expect(String(typed.json["message"])).toMatch(/^Deployment in version "v1" cannot be handled as a Deployment: /);
  });

  it("dryRun=All validates and answers without writing", async () => {
    const r = await call(
      "POST",
      "/api/v1/namespaces/default/configmaps?dryRun=All",
      JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "dry" } }),
    );
    expect(r.code).toBe(201);
    expect((r.json["metadata"] as { uid: string }).uid).toMatch(/^[0-9a-f-]{36}$/);
    expect((await cluster.client.get("/registry/configmaps/default/dry")).count).toBe(0);
  });

  it("scale and status subresources; patch types; a strategic patch on a custom resource is 415", async () => {
    expect((await call("POST", "/apis/apps/v1/namespaces/default/deployments", deployment("sc"))).code).toBe(201);
    const scale = await call("GET", "/apis/apps/v1/namespaces/default/deployments/sc/scale");
    expect(scale.json).toMatchObject({
      kind: "Scale",
      apiVersion: "autoscaling/v1",
      spec: { replicas: 1 },
      status: { replicas: 0, selector: "app=sc" },
    });
    const scaled = await call(
      "PATCH",
      "/apis/apps/v1/namespaces/default/deployments/sc/scale",
      '{"spec":{"replicas":5}}',
      { "Content-Type": "application/merge-patch+json" },
    );
    expect(scaled.json).toMatchObject({ spec: { replicas: 5 } });
    const status = await call(
      "PATCH",
      "/apis/apps/v1/namespaces/default/deployments/sc/status",
      '{"status":{"replicas":5},"spec":{"replicas":1}}',
      { "Content-Type": "application/merge-patch+json" },
    );
    expect(status.json).toMatchObject({ spec: { replicas: 5 }, status: { replicas: 5 } });
    const main = await call("PATCH", "/apis/apps/v1/namespaces/default/deployments/sc", '{"status":{"replicas":0}}', {
      "Content-Type": "application/merge-patch+json",
    });
    expect(main.json).toMatchObject({ status: { replicas: 5 } });
    const json = await call(
      "PATCH",
      "/apis/apps/v1/namespaces/default/deployments/sc",
      '[{"op":"test","path":"/spec/replicas","value":9}]',
      { "Content-Type": "application/json-patch+json" },
    );
    expect(json.code).toBe(422);
    const crd = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "widgets.example.com" },
      spec: {
        group: "example.com",
        scope: "Namespaced",
        names: { kind: "Widget", plural: "widgets", singular: "widget", listKind: "WidgetList" },
        versions: [
          {
            name: "v1",
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
          },
        ],
      },
    };
    expect(
      (await call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", JSON.stringify(crd))).code,
    ).toBe(201);
    const deadline = Date.now() + 10_000;
    let created = 0;
    while (created !== 201 && Date.now() < deadline) {
      created = (
        await call(
          "POST",
          "/apis/example.com/v1/namespaces/default/widgets",
          JSON.stringify({ apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w" }, spec: { size: 1 } }),
        )
      ).code;
    }
    expect(created).toBe(201);
    const disc = await call("GET", "/apis/example.com/v1");
    expect(disc.json["resources"]).toEqual([
      {
        name: "widgets",
        singularName: "widget",
        namespaced: true,
        kind: "Widget",
        verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
      },
    ]);
    const stored = await cluster.client.get("/registry/example.com/widgets/default/w");
    expect(new TextDecoder().decode(stored.kvs[0]!.value)).toMatch(
      /^\{"apiVersion":"example.com\/v1","kind":"Widget",/,
    );
    const smp = await call("PATCH", "/apis/example.com/v1/namespaces/default/widgets/w", '{"spec":{"size":2}}', {
      "Content-Type": "application/strategic-merge-patch+json",
    });
    expect([smp.code, smp.json["reason"]]).toEqual([415, "UnsupportedMediaType"]);
  });

  it("odd requests get a status, never an exception: the server keeps serving", async () => {
    const odd: [string, string, string?, Record<string, string>?][] = [
      ["GET", "/api/v1/namespaces/%zz/pods"],
      ["GET", "/api/v1/namespaces/default/pods/a/b/c/d"],
      ["GET", "/api/v1/pods?labelSelector=a%20in%20(b"],
      ["GET", "/api/v1/pods?resourceVersion=abc"],
      ["GET", "/api/v1/pods?watch=1&resourceVersion=-4"],
      ["POST", "/api/v1/namespaces/default/pods", "[]"],
      ["POST", "/api/v1/namespaces/default/pods", '{"apiVersion":"v1","kind":"Pod","metadata":[]}'],
      [
        "POST",
        "/api/v1/namespaces/default/pods",
        '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":"x"}}',
      ],
      ["PUT", "/api/v1/namespaces/default/pods/p", "null"],
      ["PATCH", "/api/v1/namespaces/default/configmaps/none", "{", { "Content-Type": "application/merge-patch+json" }],
      ["PATCH", "/api/v1/namespaces/default/configmaps/none", '"x"', { "Content-Type": "application/json-patch+json" }],
      ["DELETE", "/api/v1/namespaces/default/configmaps/none", '{"preconditions":{"uid":"u"}}'],
      ["POST", "/api/v1/namespaces/default/configmaps", "kind: [", { "Content-Type": "application/yaml" }],
      ["OPTIONS", "/api/v1/pods"],
    ];
    for (const [method, path, body, headers] of odd) {
      const r = await call(method, path, body, headers);
      expect(r.code, `${method} ${path}`).toBeGreaterThanOrEqual(400);
      expect(r.code, `${method} ${path}`).toBeLessThan(500);
    }
    expect((await call("GET", "/healthz")).text).toBe("ok");
  });

  it("answers a Table when asked, with the list's resourceVersion", async () => {
    const t = await call("GET", "/api/v1/namespaces", undefined, {
      Accept: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json",
    });
    expect(t.json["kind"]).toBe("Table");
    expect(t.json["apiVersion"]).toBe("meta.k8s.io/v1");
    const rows = t.json["rows"] as { cells: unknown[]; object: { kind: string } }[];
    expect(rows.map((r) => r.cells[0])).toEqual(["default"]);
    expect(rows[0]!.object.kind).toBe("PartialObjectMetadata");
  });
});
