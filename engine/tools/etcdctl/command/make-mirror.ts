// `etcdctl make-mirror <destination>` (make_mirror_command.go): copy a prefix to another cluster, then
// follow its updates, printing the number of mirrored keys every 30 s.

import { Command } from "../../cobra/command.ts";
import { ExitCode, errorText, exitWithError } from "../../cobra/exit.ts";
import * as pb from "../../../store/proto/gen/etcdserverpb.ts";
import { Event_EventType } from "../../../store/proto/gen/mvccpb.ts";
import type { ClientConfig } from "../client-port.ts";
import type { Ctl } from "../global.ts";
import { askPassword } from "../password.ts";
import { mustClient, mustClientFromCmd } from "../global.ts";
import { watchErr } from "./watch.ts";
import { prefixRangeEnd } from "./util.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** newMakeMirrorCommand is `etcdctl make-mirror`. */
export function newMakeMirrorCommand(ctl: Ctl): Command {
  const io = ctl.io;
  const cmd = new Command({
    use: "make-mirror [options] <destination>",
    short: "Makes a mirror at the destination etcd cluster",
    run: async (c, args) => {
      if (args.length !== 1) exitWithError(io, ExitCode.badArgs, "make-mirror takes one destination argument");
      const f = c.flags();
      let username = "";
      let password = "";
      const user = f.getString("dest-user");
      if (user !== "") {
        if (f.getString("dest-password") !== "") {
          username = user;
          password = f.getString("dest-password");
        } else if (user.includes(":")) {
          username = user.slice(0, user.indexOf(":"));
          password = user.slice(user.indexOf(":") + 1);
        } else {
          username = user;
          try {
            password = await askPassword(io, "Destination Password: ");
          } catch (e) {
            exitWithError(io, ExitCode.error, e);
          }
        }
      }
      const destCfg: ClientConfig = {
        endpoints: [args[0] as string],
        dialTimeoutNs: f.getDuration("dial-timeout"),
        keepAliveTimeNs: f.getDuration("keepalive-time"),
        keepAliveTimeoutNs: f.getDuration("keepalive-timeout"),
        maxCallSendMsgSize: f.getInt("max-request-bytes"),
        maxCallRecvMsgSize: f.getInt("max-recv-bytes"),
        insecureTransport: f.getBool("dest-insecure-transport"),
        tls: {
          certFile: f.getString("dest-cert"),
          keyFile: f.getString("dest-key"),
          caFile: f.getString("dest-cacert"),
          insecureSkipVerify: false,
          serverName: "",
        },
        username,
        password,
      };
      const dc = await mustClient(ctl, destCfg);
      const src = await mustClientFromCmd(ctl, c, [["makeMirrorCommandFunc", "make_mirror_command.go:135"]]);
      const prefix = f.getString("prefix");
      let destPrefix = f.getString("dest-prefix");
      const noDestPrefix = f.getBool("no-dest-prefix");
      if (noDestPrefix && destPrefix.length > 0) {
        exitWithError(
          io,
          ExitCode.badArgs,
          "`--dest-prefix` and `--no-dest-prefix` cannot be set at the same time, choose one",
        );
      }
      let total = 0;
      const ticker = setInterval(() => io.stdout(`${total}\n`), 30_000);
      const modify = (key: Uint8Array) => enc.encode(dec.decode(key).replace(prefix, destPrefix));
      const maxTxnOps = f.getInt("max-txn-ops");
      try {
        const startRev = Math.max(0, f.getInt("rev") - 1);
        const keyRange =
          prefix === ""
            ? { key: new Uint8Array([0]), rangeEnd: new Uint8Array([0]) }
            : { key: enc.encode(prefix), rangeEnd: prefixRangeEnd(enc.encode(prefix)) };
        let rev = startRev;
        if (startRev === 0) {
          if (!noDestPrefix && destPrefix.length === 0) destPrefix = prefix;
          const base = await src.range(pb.RangeRequest.create({ ...keyRange }), {});
          rev = base.header?.revision ?? 0;
          for (const kv of base.kvs) {
            await dc.put(pb.PutRequest.create({ key: modify(kv.key), value: kv.value }), {});
            total++;
          }
        }
        const w = src.watch(pb.WatchCreateRequest.create({ ...keyRange, startRevision: rev + 1 }), true);
        for await (const wr of w) {
          if (wr.compactRevision !== 0) throw new Error("etcdserver: mvcc: required revision has been compacted");
          const err = watchErr(wr);
          if (err) throw new Error(err);
          let lastRev = 0;
          let ops: pb.RequestOp[] = [];
          const flush = async () => {
            await dc.txn(pb.TxnRequest.create({ success: ops }), {});
            ops = [];
          };
          for (const ev of wr.events) {
            const nextRev = ev.kv?.modRevision ?? 0;
            if (lastRev !== 0 && nextRev > lastRev) await flush();
            lastRev = nextRev;
            if (ops.length === maxTxnOps) await flush();
            const key = modify(ev.kv?.key ?? new Uint8Array());
            ops.push(
              ev.type === Event_EventType.DELETE
                ? pb.RequestOp.create({ requestDeleteRange: pb.DeleteRangeRequest.create({ key }) })
                : pb.RequestOp.create({
                    requestPut: pb.PutRequest.create({ key, value: ev.kv?.value ?? new Uint8Array() }),
                  }),
            );
            total++;
          }
          if (ops.length !== 0) await flush();
        }
        exitWithError(io, ExitCode.error, "<nil>");
      } catch (e) {
        exitWithError(io, ExitCode.error, errorText(e));
      } finally {
        clearInterval(ticker);
      }
    },
  });
  const f = cmd.flags();
  f.string("prefix", "", "", "Key-value prefix to mirror");
  f.int64("rev", "", 0, "Specify the kv revision to start to mirror");
  f.uint("max-txn-ops", "", 128, "Maximum number of operations permitted in a transaction during syncing updates.");
  f.string(
    "dest-prefix",
    "",
    "",
    "destination prefix to mirror a prefix to a different prefix in the destination cluster",
  );
  f.bool("no-dest-prefix", "", false, "mirror key-values to the root of the destination cluster");
  f.string("dest-cert", "", "", "Identify secure client using this TLS certificate file for the destination cluster");
  f.string("dest-key", "", "", "Identify secure client using this TLS key file");
  f.string("dest-cacert", "", "", "Verify certificates of TLS enabled secure servers using this CA bundle");
  f.bool("dest-insecure-transport", "", true, "Disable transport security for client connections");
  f.string(
    "dest-user",
    "",
    "",
    "Destination username[:password] for authentication (prompt if password is not supplied)",
  );
  f.string(
    "dest-password",
    "",
    "",
    "Destination password for authentication (if this option is used, --user option shouldn't include password)",
  );
  return cmd;
}
