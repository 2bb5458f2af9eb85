// Server-side printing: the columns and cells kube-apiserver's printers produce, for the resources and pod
// states lessons show, custom resources with and without additionalPrinterColumns, and includeObject.
import { describe, expect, it } from "vitest";
import type { KubeObject } from "../api/object.ts";
import { builtinResources, crdResource } from "../api/resources.ts";
import { humanDuration } from "../api/duration.ts";
import { toTable } from "./table.ts";

const now = Date.parse("2026-03-01T12:00:00Z");
const ago = (s: number) => new Date(now - s * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
const res = (name: string) => builtinResources.find((r) => r.resource === name)!;
const cells = (resource: string, obj: object) =>
  (toTable(res(resource), [obj as KubeObject], {}, { includeObject: "None", now }).rows as { cells: unknown[] }[])[0]!
    .cells;
const names = (resource: string) =>
  (
    toTable(res(resource), [], {}, { includeObject: "None", now }).columnDefinitions as {
      name: string;
      priority: number;
    }[]
  ).map((c) => (c.priority ? `${c.name}*` : c.name));

describe("humanDuration", () => {
  it("renders as duration.HumanDuration", () => {
    expect(
      [
        -3000,
        -500,
        0,
        59_000,
        119_000,
        120_000,
        310_000,
        600_000,
        10_799_000,
        10_800_000,
        28_740_000,
        86_400_000 * 3 + 3_600_000,
        86_400_000 * 400,
        86_400_000 * 800,
        86_400_000 * 365 * 9,
      ].map(humanDuration),
    ).toEqual([
      "<invalid>",
      "0s",
      "0s",
      "59s",
      "119s",
      "2m",
      "5m10s",
      "10m",
      "179m",
      "3h",
      "7h59m",
      "3d1h",
      "400d",
      "2y70d",
      "9y",
    ]);
  });
});

describe("server-side Table", () => {
  it("pods: READY, STATUS, RESTARTS with the last restart, and the wide columns", () => {
    expect(names("pods")).toEqual([
      "Name",
      "Ready",
      "Status",
      "Restarts",
      "Age",
      "IP*",
      "Node*",
      "Nominated Node*",
      "Readiness Gates*",
    ]);
    const pod = {
      metadata: { name: "web-1", creationTimestamp: ago(3 * 3600) },
      spec: { nodeName: "worker-1", containers: [{ name: "a" }, { name: "b" }] },
      status: {
        phase: "Running",
        podIPs: [{ ip: "10.244.1.7" }],
        containerStatuses: [
          {
            name: "a",
            ready: true,
            restartCount: 2,
            state: { running: {} },
            lastState: { terminated: { finishedAt: ago(300) } },
          },
          { name: "b", ready: false, restartCount: 0, state: { waiting: { reason: "CrashLoopBackOff" } } },
        ],
      },
    };
    expect(cells("pods", pod)).toEqual([
      "web-1",
      "1/2",
      "CrashLoopBackOff",
      "2 (5m ago)",
      "3h",
      "10.244.1.7",
      "worker-1",
      "<none>",
      "<none>",
    ]);
    const pending = {
      metadata: { name: "p", creationTimestamp: ago(5) },
      spec: { containers: [{ name: "a" }] },
      status: { phase: "Pending" },
    };
    expect(cells("pods", pending).slice(0, 5)).toEqual(["p", "0/1", "Pending", "0", "5s"]);
    const terminating = { ...pending, metadata: { ...pending.metadata, deletionTimestamp: ago(1) } };
    expect(cells("pods", terminating)[2]).toBe("Terminating");
    const init = {
      ...pending,
      spec: { initContainers: [{ name: "i" }], containers: [{ name: "a" }] },
      status: { phase: "Pending", initContainerStatuses: [{ name: "i", state: { running: {} } }] },
    };
    expect(cells("pods", init)[2]).toBe("Init:0/1");
  });

  it("nodes, services, deployments, events, leases, cronjobs, jobs", () => {
    expect(
      cells("nodes", {
        metadata: {
          name: "cp-1",
          creationTimestamp: ago(90_000),
          labels: { "node-role.kubernetes.io/control-plane": "" },
        },
        spec: { unschedulable: true },
        status: {
          conditions: [{ type: "Ready", status: "False" }],
          nodeInfo: { kubeletVersion: "v1.31.4" },
          addresses: [],
        },
      }),
    ).toEqual([
      "cp-1",
      "NotReady,SchedulingDisabled",
      "control-plane",
      "25h",
      "v1.31.4",
      "<none>",
      "<none>",
      "<unknown>",
      "<unknown>",
      "<unknown>",
    ]);
    expect(
      cells("services", {
        metadata: { name: "web", creationTimestamp: ago(60) },
        spec: {
          type: "NodePort",
          clusterIP: "10.96.4.2",
          ports: [
            { port: 80, nodePort: 30080, protocol: "TCP" },
            { port: 53, protocol: "UDP" },
          ],
          selector: { app: "web", tier: "a" },
        },
      }),
    ).toEqual(["web", "NodePort", "10.96.4.2", "<none>", "80:30080/TCP,53/UDP", "60s", "app=web,tier=a"]);
    expect(
      cells("deployments", {
        metadata: { name: "web", creationTimestamp: ago(60) },
        spec: {
          replicas: 3,
          selector: { matchLabels: { app: "web" } },
          template: { spec: { containers: [{ name: "nginx", image: "nginx:1.27" }] } },
        },
        status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
      }),
    ).toEqual(["web", "2/3", 3, 2, "60s", "nginx", "nginx:1.27", "app=web"]);
    expect(names("events")).toEqual([
      "Last Seen",
      "Type",
      "Reason",
      "Object",
      "Subobject*",
      "Source*",
      "Message",
      "First Seen*",
      "Count*",
      "Name*",
    ]);
    expect(
      cells("events", {
        metadata: { name: "web-1.17a" },
        involvedObject: { kind: "Pod", name: "web-1" },
        reason: "Started",
        message: "Started container main ",
        type: "Normal",
        source: { component: "kubelet", host: "worker-1" },
        firstTimestamp: ago(600),
        lastTimestamp: ago(30),
        count: 4,
      }),
    ).toEqual([
      "30s",
      "Normal",
      "Started",
      "pod/web-1",
      "",
      "kubelet, worker-1",
      "Started container main",
      "10m",
      4,
      "web-1.17a",
    ]);
    expect(
      cells("leases", { metadata: { name: "cp-1", creationTimestamp: ago(10) }, spec: { holderIdentity: "cp-1" } }),
    ).toEqual(["cp-1", "cp-1", "10s"]);
    expect(names("cronjobs").slice(0, 7)).toEqual([
      "Name",
      "Schedule",
      "Timezone",
      "Suspend",
      "Active",
      "Last Schedule",
      "Age",
    ]);
    expect(
      cells("jobs", {
        metadata: { name: "backup-1", creationTimestamp: ago(120) },
        spec: { completions: 1, template: { spec: { containers: [{ name: "c", image: "etcd" }] } } },
        status: {
          succeeded: 1,
          startTime: ago(120),
          completionTime: ago(100),
          conditions: [{ type: "Complete", status: "True" }],
        },
      }).slice(0, 5),
    ).toEqual(["backup-1", "Complete", "1/1", "20s", "2m"]);
  });

  it("custom resources: NAME and AGE, or the CRD's additionalPrinterColumns", () => {
    const r = crdResource({
      group: "example.com",
      version: "v1",
      scope: "Namespaced",
      names: { kind: "Widget", plural: "widgets" },
    });
    const w = {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "w1", creationTimestamp: ago(7200) },
      spec: { size: 3 },
    } as KubeObject;
    const plain = toTable(r, [w], {}, { includeObject: "None", now });
    expect((plain.columnDefinitions as { name: string }[]).map((c) => c.name)).toEqual(["Name", "Age"]);
    expect((plain.rows as { cells: unknown[] }[])[0]!.cells).toEqual(["w1", "120m"]);
    const cols = toTable(
      r,
      [w],
      {},
      { includeObject: "None", now, printerColumns: [{ name: "Size", type: "integer", jsonPath: ".spec.size" }] },
    );
    expect((cols.rows as { cells: unknown[] }[])[0]!.cells).toEqual(["w1", 3]);
  });

  it("includeObject: Metadata carries PartialObjectMetadata, Object the object, None nothing", () => {
    const cm = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "c", namespace: "default" },
      data: { a: "1" },
    } as KubeObject;
    const row = (include: "None" | "Metadata" | "Object") =>
      (
        toTable(res("configmaps"), [cm], { resourceVersion: "9" }, { includeObject: include, now }).rows as {
          object?: unknown;
        }[]
      )[0]!.object;
    expect(row("Metadata")).toEqual({
      kind: "PartialObjectMetadata",
      apiVersion: "meta.k8s.io/v1",
      metadata: cm.metadata,
    });
    expect(row("Object")).toEqual(cm);
    expect(row("None")).toBeUndefined();
    expect(toTable(res("configmaps"), [cm], { resourceVersion: "9" }, { includeObject: "None", now }).metadata).toEqual(
      { resourceVersion: "9" },
    );
  });
});
