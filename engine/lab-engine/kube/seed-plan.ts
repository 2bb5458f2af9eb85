// The keyspace of a small real Kubernetes cluster (one control-plane node, two workers, CoreDNS, Calico,
// metrics-server, a three-replica web app) as etcd holds it: /registry/<resource>/<namespace>/<name>,
// built-in kinds as protobuf envelopes, custom resources as JSON. Deterministic for a given seed: names,
// uids and timestamps come from a seeded Rng, so lessons can show the same keys every time. Each resource
// kind is written by its module in resources/; the order below is the write order and the Rng's draw order.
import { seededRng } from "../../common/rng.ts";
import { SeedWriter, type SeedEntry } from "./seed-writer.ts";
import {
  seedNamespaces,
  seedNodes,
  seedPriorityClasses,
  seedRangeAllocations,
  type KubeNode,
} from "./resources/cluster.ts";
import { seedConfigMaps, seedSecrets, seedServiceAccounts } from "./resources/config.ts";
import { seedWorkloads, type SeedPod } from "./resources/workloads.ts";
import { seedServices } from "./resources/services.ts";
import { seedLeases, type SeedLease } from "./resources/leases.ts";
import { seedRbac } from "./resources/rbac.ts";
import { seedCalico } from "./resources/calico.ts";

/** SeedPlan is everything the seed writes plus what the workload needs to keep it alive. */
export interface SeedPlan {
  entries: SeedEntry[];
  nodes: KubeNode[];
  /** pods the workload writes events about. */
  pods: SeedPod[];
  /** leases are the Lease objects the workload renews (node heartbeats, leader elections). */
  leases: SeedLease[];
  /** createdAt is the cluster's creation time (seconds since the epoch). */
  createdAt: number;
}

/**
 * seedPlan builds the deterministic keyspace for `seed` with `masters` control-plane nodes (one per etcd
 * member: k8s-master-1 …) and two workers, dated from `createdAt` (seconds).
 */
export function seedPlan(seed: number, masters = 1, createdAt = Date.UTC(2026, 0, 12, 9, 12, 0) / 1000): SeedPlan {
  const w = new SeedWriter(seededRng(seed), createdAt);
  seedNamespaces(w);
  seedPriorityClasses(w);
  seedRangeAllocations(w);
  const nodes = seedNodes(w, masters);
  seedServiceAccounts(w);
  seedConfigMaps(w);
  seedSecrets(w);
  const pods = seedWorkloads(w, nodes);
  seedServices(w, pods, nodes);
  const leases = seedLeases(w, nodes);
  seedRbac(w);
  seedCalico(w);
  return { entries: w.entries, nodes, pods, leases, createdAt };
}
