// The `protobuf` format (printer_protobuf.go): the gogo Marshal() bytes of the result, no newline. Go's
// method promotion decides what marshals: clientv3's lease wrappers embed *pb.ResponseHeader, so `lease
// grant -w protobuf` prints just the encoded header; `lease revoke` has no Marshal and fails as etcd does.

import * as pb from "../../../store/proto/gen/etcdserverpb.ts";
import type { MessageType } from "../../../store/proto/message-type.ts";
import { ExitCode, exitWithError } from "../../cobra/exit.ts";
import type { CliIo } from "../../cobra/io.ts";
import type { Printer } from "./printer.ts";
import { unsupportedPrinter } from "./printer.ts";

/** newProtobufPrinter builds `-w protobuf`. */
export function newProtobufPrinter(io: CliIo): Printer {
  const rpc =
    <T>(type: MessageType<T>) =>
    (m: T) =>
      io.stdout(type.encode(m));
  const header = (r: { header: pb.ResponseHeader | undefined }) =>
    io.stdout(pb.ResponseHeader.encode(r.header ?? pb.ResponseHeader.create()));
  const own: Partial<Printer> = {
    del: rpc(pb.DeleteRangeResponse),
    get: rpc(pb.RangeResponse),
    put: rpc(pb.PutResponse),
    txn: rpc(pb.TxnResponse),
    watch: (r) =>
      io.stdout(
        pb.WatchResponse.encode(
          pb.WatchResponse.create({
            header: r.header,
            events: r.events,
            compactRevision: r.compactRevision,
            canceled: r.canceled,
            created: r.created,
          }),
        ),
      ),
    grant: header,
    keepAlive: header,
    timeToLive: header,
    leases: header,
    revoke: () =>
      exitWithError(
        io,
        ExitCode.badFeature,
        "marshal unsupported for type clientv3.LeaseRevokeResponse ({0xc0001a4000 {} [] 0})",
      ),
    memberAdd: rpc(pb.MemberAddResponse),
    memberRemove: (_id, r) => io.stdout(pb.MemberRemoveResponse.encode(r)),
    memberUpdate: (_id, r) => io.stdout(pb.MemberUpdateResponse.encode(r)),
    memberPromote: (_id, r) => io.stdout(pb.MemberPromoteResponse.encode(r)),
    memberList: rpc(pb.MemberListResponse),
    alarm: rpc(pb.AlarmResponse),
    moveLeader: (_l, _t, r) => io.stdout(pb.MoveLeaderResponse.encode(r)),
    downgradeValidate: rpc(pb.DowngradeResponse),
    downgradeEnable: rpc(pb.DowngradeResponse),
    downgradeCancel: rpc(pb.DowngradeResponse),
    roleAdd: (_n, r) => io.stdout(pb.AuthRoleAddResponse.encode(r)),
    roleGet: (_n, r) => io.stdout(pb.AuthRoleGetResponse.encode(r)),
    roleDelete: (_n, r) => io.stdout(pb.AuthRoleDeleteResponse.encode(r)),
    roleList: rpc(pb.AuthRoleListResponse),
    roleGrantPermission: (_n, r) => io.stdout(pb.AuthRoleGrantPermissionResponse.encode(r)),
    roleRevokePermission: (_n, _k, _e, r) => io.stdout(pb.AuthRoleRevokePermissionResponse.encode(r)),
    userAdd: (_n, r) => io.stdout(pb.AuthUserAddResponse.encode(r)),
    userGet: (_n, r) => io.stdout(pb.AuthUserGetResponse.encode(r)),
    userList: rpc(pb.AuthUserListResponse),
    userChangePassword: rpc(pb.AuthUserChangePasswordResponse),
    userGrantRole: (_u, _r, r) => io.stdout(pb.AuthUserGrantRoleResponse.encode(r)),
    userRevokeRole: (_u, _r, r) => io.stdout(pb.AuthUserRevokeRoleResponse.encode(r)),
    userDelete: (_u, r) => io.stdout(pb.AuthUserDeleteResponse.encode(r)),
    authStatus: rpc(pb.AuthStatusResponse),
  };
  return { ...unsupportedPrinter(io, "protobuf"), ...own };
}
