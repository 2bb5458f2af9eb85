// The `simple` format (printer_simple.go): keys and values as raw bytes one per line, `OK`, `SUCCESS`,
// comma-separated member and status rows, lease IDs in %016x. Keys and values are written as bytes, never
// decoded, so binary (protobuf) values pipe into hexdump exactly as from etcdctl.

import type * as pb from "../../../store/proto/gen/etcdserverpb.ts";
import { AlarmType } from "../../../store/proto/gen/etcdserverpb.ts";
import type * as mvccpb from "../../../store/proto/gen/mvccpb.ts";
import { Event_EventType } from "../../../store/proto/gen/mvccpb.ts";
import { Permission_Type } from "../../../store/proto/gen/authpb.ts";
import type * as authpb from "../../../store/proto/gen/authpb.ts";
import { formatHex, formatHexPadded, formatStringList } from "../../../go/go-strconv.ts";
import type { CliIo } from "../../cobra/io.ts";
import type {
  EpHashKV,
  EpHealth,
  EpStatus,
  LeaseGrantResult,
  LeaseKeepAliveResult,
  LeaseLeasesResult,
  LeaseTimeToLiveResult,
  Printer,
  WatchResult,
} from "./printer.ts";
import { makeEndpointHashKVTable, makeEndpointStatusTable, makeMemberListTable } from "./printer.ts";

const decoder = new TextDecoder();
const nl = new Uint8Array([0x0a]);

/** hexBytes is etcdctl's `--hex` form: every byte as `\xNN`. */
export function hexBytes(b: Uint8Array): string {
  let out = "";
  for (const byte of b) out += `\\x${byte.toString(16).padStart(2, "0")}`;
  return out;
}

/** bytesString decodes bytes for places where Go converts []byte to string inside a format. */
export function bytesString(b: Uint8Array): string {
  return decoder.decode(b);
}

/** getPrefixRangeEnd is clientv3.GetPrefixRangeEnd over strings (the range end of a prefix). */
export function getPrefixRangeEnd(prefix: Uint8Array): Uint8Array {
  const end = Uint8Array.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if ((end[i] as number) < 0xff) {
      end[i] = (end[i] as number) + 1;
      return end.slice(0, i + 1);
    }
  }
  return new Uint8Array([0]);
}

/** SimplePrinter is the default `-w simple` printer. */
export class SimplePrinter implements Printer {
  /** valueOnly is set by `get --print-value-only`. */
  valueOnly = false;

  constructor(
    private readonly io: CliIo,
    private readonly isHex: boolean,
  ) {}

  private line(s: string): void {
    this.io.stdout(`${s}\n`);
  }

  /** printKV is util.go's printKV. */
  printKV(kv: mvccpb.KeyValue): void {
    if (this.isHex) {
      if (!this.valueOnly) this.line(hexBytes(kv.key));
      this.line(hexBytes(kv.value));
      return;
    }
    if (!this.valueOnly) {
      this.io.stdout(kv.key);
      this.io.stdout(nl);
    }
    this.io.stdout(kv.value);
    this.io.stdout(nl);
  }

  del(r: pb.DeleteRangeResponse): void {
    this.line(String(r.deleted));
    for (const kv of r.prevKvs) this.printKV(kv);
  }

  get(r: pb.RangeResponse): void {
    for (const kv of r.kvs) this.printKV(kv);
  }

  put(r: pb.PutResponse): void {
    this.line("OK");
    if (r.prevKv) this.printKV(r.prevKv);
  }

  txn(r: pb.TxnResponse): void {
    this.line(r.succeeded ? "SUCCESS" : "FAILURE");
    for (const op of r.responses) {
      this.line("");
      if (op.responseDeleteRange) this.del(op.responseDeleteRange);
      else if (op.responsePut) this.put(op.responsePut);
      else if (op.responseRange) this.get(op.responseRange);
      else this.line(`unexpected response ${op.responseTxn ? "response_txn:<...> " : "<nil>"}`);
    }
  }

  watch(r: WatchResult): void {
    for (const e of r.events) {
      this.line(e.type === Event_EventType.DELETE ? "DELETE" : "PUT");
      if (e.prevKv) this.printKV(e.prevKv);
      if (e.kv) this.printKV(e.kv);
    }
  }

  grant(r: LeaseGrantResult): void {
    this.line(`lease ${formatHexPadded(r.ID, 16, true)} granted with TTL(${r.TTL}s)`);
  }

  revoke(id: bigint): void {
    this.line(`lease ${formatHexPadded(id, 16, true)} revoked`);
  }

  keepAlive(r: LeaseKeepAliveResult): void {
    this.line(`lease ${formatHexPadded(r.ID, 16, true)} keepalived with TTL(${r.TTL})`);
  }

  timeToLive(r: LeaseTimeToLiveResult, keys: boolean): void {
    if (r.grantedTTL === 0 && r.TTL === -1) {
      this.line(`lease ${formatHexPadded(r.ID, 16, true)} already expired`);
      return;
    }
    let txt = `lease ${formatHexPadded(r.ID, 16, true)} granted with TTL(${r.grantedTTL}s), remaining(${r.TTL}s)`;
    if (keys) txt += `, attached keys(${formatStringList((r.keys ?? []).map(bytesString))})`;
    this.line(txt);
  }

  leases(r: LeaseLeasesResult): void {
    this.line(`found ${r.leases.length} leases`);
    for (const id of r.leases) this.line(formatHexPadded(id, 16, true));
  }

  alarm(r: pb.AlarmResponse): void {
    // fmt's %+v on a gogo message uses its String(): the compact text format, trailing space included.
    for (const a of r.alarms) {
      let txt = "";
      if (a.memberID !== 0n) txt += `memberID:${a.memberID} `;
      if (a.alarm !== AlarmType.NONE) txt += `alarm:${AlarmType[a.alarm] ?? a.alarm} `;
      this.line(txt);
    }
  }

  memberAdd(r: pb.MemberAddResponse): void {
    const as = r.member?.isLearner ? " as learner " : " ";
    const cluster = formatHexPadded(r.header?.clusterId ?? 0n, 16, false);
    this.line(`Member ${formatHexPadded(r.member?.ID ?? 0n, 16, false)} added${as}to cluster ${cluster}`);
  }

  memberRemove(id: bigint, r: pb.MemberRemoveResponse): void {
    this.line(
      `Member ${formatHexPadded(id, 16, false)} removed from cluster ${formatHexPadded(r.header?.clusterId ?? 0n, 16, false)}`,
    );
  }

  memberUpdate(id: bigint, r: pb.MemberUpdateResponse): void {
    this.line(
      `Member ${formatHexPadded(id, 16, false)} updated in cluster ${formatHexPadded(r.header?.clusterId ?? 0n, 16, false)}`,
    );
  }

  memberPromote(id: bigint, r: pb.MemberPromoteResponse): void {
    this.line(
      `Member ${formatHexPadded(id, 16, false)} promoted in cluster ${formatHexPadded(r.header?.clusterId ?? 0n, 16, false)}`,
    );
  }

  memberList(r: pb.MemberListResponse): void {
    for (const row of makeMemberListTable(r).rows) this.line(row.join(", "));
  }

  endpointHealth(list: EpHealth[]): void {
    for (const h of list) {
      if (h.error === "") this.line(`${h.ep} is healthy: successfully committed proposal: took = ${h.took}`);
      else this.io.stderr(`${h.ep} is unhealthy: failed to commit proposal: ${h.error}\n`);
    }
  }

  endpointStatus(list: EpStatus[]): void {
    for (const row of makeEndpointStatusTable(list).rows) this.line(row.join(", "));
  }

  endpointHashKV(list: EpHashKV[]): void {
    for (const row of makeEndpointHashKVTable(list).rows) this.line(row.join(", "));
  }

  moveLeader(leader: bigint, target: bigint): void {
    this.line(`Leadership transferred from ${formatHex(leader)} to ${formatHex(target)}`);
  }

  downgradeValidate(r: pb.DowngradeResponse): void {
    this.line(`Downgrade validate success, cluster version ${r.version}`);
  }

  downgradeEnable(r: pb.DowngradeResponse): void {
    this.line(`Downgrade enable success, cluster version ${r.version}`);
  }

  downgradeCancel(r: pb.DowngradeResponse): void {
    this.line(`Downgrade cancel success, cluster version ${r.version}`);
  }

  roleAdd(role: string): void {
    this.line(`Role ${role} created`);
  }

  roleGet(role: string, r: pb.AuthRoleGetResponse): void {
    this.line(`Role ${role}`);
    if (role === "root" && r.perm.length === 0) {
      this.line("KV Read:");
      this.line("\t[, <open ended>");
      this.line("KV Write:");
      this.line("\t[, <open ended>");
      return;
    }
    const printRange = (perm: authpb.Permission) => {
      const sKey = bytesString(perm.key);
      const sEnd = bytesString(perm.rangeEnd);
      let txt = sEnd !== "\x00" ? `\t[${sKey}, ${sEnd})` : `\t[${sKey}, <open ended>`;
      if (sKey.length > 0 && bytesString(getPrefixRangeEnd(perm.key)) === sEnd) txt += ` (prefix ${sKey})`;
      this.line(txt);
    };
    const section = (types: Permission_Type[]) => {
      for (const perm of r.perm) {
        if (!types.includes(perm.permType)) continue;
        if (perm.rangeEnd.length === 0) this.line(`\t${bytesString(perm.key)}`);
        else printRange(perm);
      }
    };
    this.line("KV Read:");
    section([Permission_Type.READ, Permission_Type.READWRITE]);
    this.line("KV Write:");
    section([Permission_Type.WRITE, Permission_Type.READWRITE]);
  }

  roleList(r: pb.AuthRoleListResponse): void {
    for (const role of r.roles) this.line(role);
  }

  roleDelete(role: string): void {
    this.line(`Role ${role} deleted`);
  }

  roleGrantPermission(role: string): void {
    this.line(`Role ${role} updated`);
  }

  roleRevokePermission(role: string, key: string, end: string): void {
    if (end.length === 0) this.line(`Permission of key ${key} is revoked from role ${role}`);
    else if (end !== "\x00") this.line(`Permission of range [${key}, ${end}) is revoked from role ${role}`);
    else this.line(`Permission of range [${key}, <open ended> is revoked from role ${role}`);
  }

  userAdd(user: string): void {
    this.line(`User ${user} created`);
  }

  userGet(user: string, r: pb.AuthUserGetResponse): void {
    this.line(`User: ${user}`);
    this.line(`Roles:${r.roles.map((x) => ` ${x}`).join("")}`);
  }

  userChangePassword(): void {
    this.line("Password updated");
  }

  userGrantRole(user: string, role: string): void {
    this.line(`Role ${role} is granted to user ${user}`);
  }

  userRevokeRole(user: string, role: string): void {
    this.line(`Role ${role} is revoked from user ${user}`);
  }

  userDelete(user: string): void {
    this.line(`User ${user} deleted`);
  }

  userList(r: pb.AuthUserListResponse): void {
    for (const u of r.users) this.line(u);
  }

  authStatus(r: pb.AuthStatusResponse): void {
    this.line(`Authentication Status: ${r.enabled}`);
    this.line(`AuthRevision: ${r.authRevision}`);
  }
}
