// `etcdctl endpoint health|status|hashkv` (ep_command.go), and endpointsFromCluster shared with defrag.

import type { Command } from "../../cobra/command.ts";
import { Command as Cmd } from "../../cobra/command.ts";
import { ExitCode, errorText, exitWithError } from "../../cobra/exit.ts";
import { formatGoDurationNs } from "../../../go/go-duration.ts";
import { exitWith } from "../../cobra/io.ts";
import { AlarmType, RangeRequest } from "../../../store/proto/gen/etcdserverpb.ts";
import type { ClientConfig } from "../client-port.ts";
import type { Ctl } from "../global.ts";
import {
  authCfgFromCmd,
  clientConfigFromCmd,
  commandCtx,
  endpointsFromCmd,
  mustClient,
  secureCfgFromCmd,
} from "../global.ts";
import type { EpHashKV, EpHealth, EpStatus } from "../printer/printer.ts";

/** endpointsFromCluster is --endpoints, or with --cluster every member's client URLs. */
export async function endpointsFromCluster(ctl: Ctl, cmd: Command): Promise<string[]> {
  const f = cmd.flags();
  if (!f.getBool("cluster")) return f.getStringSlice("endpoints");
  const tls = secureCfgFromCmd(ctl, cmd);
  const auth = await authCfgFromCmd(ctl, cmd);
  let eps: string[];
  try {
    eps = await endpointsFromCmd(ctl, cmd);
  } catch (e) {
    return exitWithError(ctl.io, ExitCode.error, e);
  }
  const cfg: ClientConfig = {
    endpoints: eps,
    dialTimeoutNs: f.getDuration("dial-timeout"),
    keepAliveTimeNs: f.getDuration("keepalive-time"),
    keepAliveTimeoutNs: f.getDuration("keepalive-timeout"),
    maxCallSendMsgSize: 0,
    maxCallRecvMsgSize: 0,
    insecureTransport: f.getBool("insecure-transport"),
    tls,
    ...auth,
  };
  const { newCtlClient } = await import("../client.ts");
  let c;
  try {
    c = await newCtlClient(ctl.io, cfg);
  } catch (e) {
    return exitWithError(ctl.io, ExitCode.error, e);
  }
  const { signal, deadlineMs, cancel } = commandCtx(cmd);
  try {
    const membs = await c.memberList(true, { signal, deadlineMs });
    return membs.members.flatMap((m) => m.clientURLs);
  } catch (e) {
    return exitWithError(
      ctl.io,
      ExitCode.error,
      `failed to fetch endpoints from etcd cluster member list: ${errorText(e)}`,
    );
  } finally {
    cancel();
    c.close();
  }
}

async function health(ctl: Ctl, c: Command): Promise<void> {
  const io = ctl.io;
  const cfg = await clientConfigFromCmd(ctl, c, [["epHealthCommandFunc", "ep_command.go:99"]]);
  const eps = await endpointsFromCluster(ctl, c);
  const { newCtlClient } = await import("../client.ts");
  const results: EpHealth[] = [];
  await Promise.all(
    eps.map(async (ep) => {
      let cli;
      try {
        cli = ctl.track(await newCtlClient(io, { ...cfg, endpoints: [ep] }, { logger: "client" }));
      } catch (e) {
        results.push({ ep, health: false, took: "", error: errorText(e) });
        return;
      }
      const st = io.monoNs();
      const { signal, deadlineMs, cancel } = commandCtx(c);
      const eh: EpHealth = { ep, health: false, took: "", error: "" };
      try {
        // A linearizable Get of a random key: a response (even an empty one) means consensus works.
        await cli.range(RangeRequest.create({ key: new TextEncoder().encode("health") }), { signal, deadlineMs });
        eh.health = true;
      } catch (e) {
        // Permission denied still proves the request went through consensus.
        if (errorText(e) === "etcdserver: permission denied") eh.health = true;
        else eh.error = errorText(e);
      }
      eh.took = formatGoDurationNs(Number(io.monoNs() - st));
      if (eh.health) {
        try {
          const resp = await cli.alarm({ action: 0, memberID: 0n, alarm: 0 }, { signal, deadlineMs });
          if (resp.alarms.length > 0) {
            eh.health = false;
            eh.error = "Active Alarm(s): ";
            for (const a of resp.alarms) {
              eh.error +=
                a.alarm === AlarmType.NOSPACE ? "NOSPACE " : a.alarm === AlarmType.CORRUPT ? "CORRUPT " : "UNKNOWN ";
            }
          }
        } catch {
          eh.health = false;
          eh.error = "Unable to fetch the alarm list";
        }
      }
      cancel();
      results.push(eh);
    }),
  );
  ctl.display.endpointHealth(results);
  if (results.some((h) => h.error !== "")) exitWithError(io, ExitCode.error, "unhealthy cluster");
}

async function status(ctl: Ctl, c: Command): Promise<void> {
  const io = ctl.io;
  const cfg = await clientConfigFromCmd(ctl, c, [["epStatusCommandFunc", "ep_command.go:186"]]);
  const list: EpStatus[] = [];
  let failed = false;
  for (const ep of await endpointsFromCluster(ctl, c)) {
    const cli = await mustClient(ctl, { ...cfg, endpoints: [ep] });
    const { signal, deadlineMs, cancel } = commandCtx(c);
    try {
      list.push({ ep, resp: await cli.status(ep, { signal, deadlineMs }) });
    } catch (e) {
      failed = true;
      io.stderr(`Failed to get the status of endpoint ${ep} (${errorText(e)})\n`);
    } finally {
      cancel();
      cli.close();
    }
  }
  ctl.display.endpointStatus(list);
  if (failed) exitWith(ExitCode.error);
}

async function hashkv(ctl: Ctl, c: Command): Promise<void> {
  const io = ctl.io;
  const cfg = await clientConfigFromCmd(ctl, c, [["epHashKVCommandFunc", "ep_command.go:218"]]);
  const rev = c.flags().getInt("rev");
  const list: EpHashKV[] = [];
  let lastErr: unknown;
  for (const ep of await endpointsFromCluster(ctl, c)) {
    const cli = await mustClient(ctl, { ...cfg, endpoints: [ep] });
    const { signal, deadlineMs, cancel } = commandCtx(c);
    try {
      list.push({ ep, resp: await cli.hashKV(ep, rev, { signal, deadlineMs }) });
    } catch (e) {
      lastErr = e;
      io.stderr(`Failed to get the hash of endpoint ${ep} (${errorText(e)})\n`);
    } finally {
      cancel();
      cli.close();
    }
  }
  ctl.display.endpointHashKV(list);
  if (lastErr !== undefined) exitWithError(io, ExitCode.error, lastErr);
}

/** newEndpointCommand is `etcdctl endpoint`. */
export function newEndpointCommand(ctl: Ctl): Cmd {
  const ec = new Cmd({ use: "endpoint <subcommand>", short: "Endpoint related commands" });
  ec.persistentFlags().bool("cluster", "", false, "use all endpoints from the cluster member list");
  const hc = new Cmd({
    use: "hashkv",
    short: "Prints the KV history hash for each endpoint in --endpoints",
    run: (c) => hashkv(ctl, c),
  });
  hc.persistentFlags().int64("rev", "", 0, "maximum revision to hash (default: latest revision)");
  ec.addCommand(
    new Cmd({
      use: "health",
      short: "Checks the healthiness of endpoints specified in `--endpoints` flag",
      run: (c) => health(ctl, c),
    }),
    new Cmd({
      use: "status",
      short: "Prints out the status of endpoints specified in `--endpoints` flag",
      long: `When --write-out is set to simple, this command prints out comma-separated status lists for each endpoint.
The items in the lists are endpoint, ID, version, db size, is leader, is learner, raft term, raft index, raft applied index, errors.
`,
      run: (c) => status(ctl, c),
    }),
    hc,
  );
  return ec;
}
