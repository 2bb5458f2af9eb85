// Alarms (etcd server/etcdserver/api/v3alarm): NOSPACE and CORRUPT per member, persisted in the `alarm`
// bucket (key: the encoded AlarmMember, value: empty) so that an alarm survives restarts until disarmed.
import type { Logger } from "../../go/zap.ts";
import type { Gauge } from "../metrics/registry.ts";
import type { Backend } from "../mvcc/backend.ts";
import {
  AlarmMember,
  AlarmRequest_AlarmAction,
  AlarmType,
  type AlarmRequest,
  type AlarmResponse,
} from "../proto/gen/etcdserverpb.ts";

/** AlarmStore holds the active alarms of the cluster. */
export class AlarmStore {
  private readonly byType = new Map<AlarmType, Map<bigint, AlarmMember>>();

  constructor(private readonly backend: Backend) {
    this.restore();
  }

  /** activate raises an alarm; it returns the alarm, or the one already active for that member and type. */
  activate(memberId: bigint, alarm: AlarmType): AlarmMember {
    const set = this.set(alarm);
    const existing = set.get(memberId);
    if (existing) return existing;
    const m: AlarmMember = { memberID: memberId, alarm };
    set.set(memberId, m);
    this.backend.put("alarm", AlarmMember.encode(m), new Uint8Array(0));
    return m;
  }

  /** deactivate disarms an alarm; it returns the removed alarm, or undefined when it was not active. */
  deactivate(memberId: bigint, alarm: AlarmType): AlarmMember | undefined {
    const set = this.set(alarm);
    const m = set.get(memberId);
    if (!m) return undefined;
    set.delete(memberId);
    this.backend.delete("alarm", AlarmMember.encode(m));
    return m;
  }

  /** get lists the active alarms of one type (NONE: all), ordered by type then member id. */
  get(alarm: AlarmType = AlarmType.NONE): AlarmMember[] {
    const types = alarm === AlarmType.NONE ? [...this.byType.keys()].sort((a, b) => a - b) : [alarm];
    const out: AlarmMember[] = [];
    for (const t of types) {
      const ms = [...(this.byType.get(t)?.values() ?? [])];
      ms.sort((a, b) => (a.memberID < b.memberID ? -1 : a.memberID > b.memberID ? 1 : 0));
      out.push(...ms);
    }
    return out;
  }

  /** has says whether an alarm of this type is active for any member. */
  has(alarm: AlarmType): boolean {
    return (this.byType.get(alarm)?.size ?? 0) > 0;
  }

  /** restore reloads the alarms from the backend (at start and after a Raft snapshot). */
  restore(): void {
    this.byType.clear();
    this.backend.forEach("alarm", (k) => {
      const m = AlarmMember.decode(k);
      this.set(m.alarm).set(m.memberID, m);
    });
  }

  private set(alarm: AlarmType): Map<bigint, AlarmMember> {
    let s = this.byType.get(alarm);
    if (!s) {
      s = new Map();
      this.byType.set(alarm, s);
    }
    return s;
  }
}

/**
 * formatAlarm prints an alarm as etcd does in `alarm list`, `endpoint status` ERRORS and /health logs:
 * `memberID:<decimal id> alarm:NOSPACE ` (gogoproto's text format, with its trailing space).
 */
export function formatAlarm(m: AlarmMember): string {
  return `memberID:${m.memberID} alarm:${AlarmType[m.alarm] ?? m.alarm} `;
}

/**
 * applyAlarmRequest applies an AlarmRequest (etcd's applierV3backend.Alarm): GET lists, ACTIVATE raises (not
 * NONE), DEACTIVATE disarms; the response lists the alarms concerned. It feeds etcd_debugging_server_alarms
 * and logs etcd's "alarm raised" / "alarm disarmed" lines.
 */
export function applyAlarmRequest(
  alarms: AlarmStore,
  ar: AlarmRequest,
  gauge: Gauge | undefined,
  logger: Logger | undefined,
): AlarmResponse {
  const resp: AlarmResponse = { header: undefined, alarms: [] };
  const id = ar.memberID;
  const labels = { server_id: id.toString(16), alarm_type: AlarmType[ar.alarm] ?? "" };
  switch (ar.action) {
    case AlarmRequest_AlarmAction.GET:
      resp.alarms = alarms.get(ar.alarm);
      break;
    case AlarmRequest_AlarmAction.ACTIVATE: {
      if (ar.alarm === AlarmType.NONE) break;
      resp.alarms.push(alarms.activate(id, ar.alarm));
      gauge?.add(1, labels);
      logger?.warn("etcdserver/apply.go:255", "alarm raised", { alarm: AlarmType[ar.alarm], from: id.toString(16) });
      break;
    }
    case AlarmRequest_AlarmAction.DEACTIVATE: {
      const m = alarms.deactivate(id, ar.alarm);
      if (!m) break;
      resp.alarms.push(m);
      gauge?.add(-1, labels);
      logger?.warn("etcdserver/apply.go:286", "alarm disarmed", { alarm: AlarmType[ar.alarm], from: id.toString(16) });
      break;
    }
  }
  return resp;
}
