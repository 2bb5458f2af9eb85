// The golden scripts against a cluster of our own member server; golden.test.ts runs them against real etcd
// 3.4 (ETCD_LAB_GOLDEN_SERVER picks the server; this file sets it before the suite reads it).
process.env["ETCD_LAB_GOLDEN_SERVER"] = "ours";
await import("./golden.test.ts");
export {};
