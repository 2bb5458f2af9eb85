// The simulated applications a node's runtime can run for a container: small programs that talk to the
// apiserver through KubeClient, as a real pod would with its service account. The one the course needs is a
// leaking operator, "configmap-spammer" (lesson 7): while its pod runs, it creates a ~512 KiB ConfigMap in
// its own namespace every second, forever, and never cleans up. Scale its Deployment up and etcd's backend
// fills towards the quota; scale it to 0 (or delete it) and the leak stops with its pods. It is simulated: no
// such image exists; the kubelet recognises the image name and runs this loop instead. Its writes are real.
import { ApiError, type KubeClient } from "../api/client.ts";
import type { Clock, Timer } from "./clock.ts";
import { rfc3339 } from "./clock.ts";
import { errorText } from "./events.ts";

/** AppContainer is the container an app runs as. */
export interface AppContainer {
  namespace: string;
  pod: string;
  container: string;
  image: string;
}

/** AppLauncher starts the simulated app of a container, if its image names one. */
export interface AppLauncher {
  /**
   * launch starts the app for `c` and returns its stop function, or null when the image is not a simulated
   * app. `log` appends a line to the container's log (`kubectl logs`).
   */
  launch(c: AppContainer, log: (line: string) => void): (() => void) | null;
}

/** spammerRepository is the image repository the kubelet runs as the leaking operator (any registry, any tag). */
export const spammerRepository = "configmap-spammer";

/** spammerImage is the image the course's lab uses for it. */
export const spammerImage = "lab.local/leaky/configmap-spammer:1.0";

/** spammerIntervalMs is how often one replica creates a ConfigMap. */
export const spammerIntervalMs = 1000;

/** spammerPayloadBytes is the size of each ConfigMap's one data value (512 KiB; the apiserver allows 1 MiB). */
export const spammerPayloadBytes = 512 * 1024;

/** isSpammerImage says whether an image is the leaking operator's (its repository's last path segment). */
export function isSpammerImage(image: string): boolean {
  const repo = image.replace(/@.*$/, "").replace(/:[^/:]*$/, "");
  return repo.split("/").pop() === spammerRepository;
}

/** payload is the ConfigMap value: printable and deterministic. */
function payload(bytes: number): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  return alphabet.repeat(Math.ceil(bytes / alphabet.length)).slice(0, bytes);
}

/** SpammerOptions tune the leak (tests shrink the payload). */
export interface SpammerOptions {
  intervalMs?: number;
  payloadBytes?: number;
}

/** simulatedApps launches the apps this simulation knows: today, the ConfigMap spammer. */
export function simulatedApps(client: () => KubeClient, clock: Clock, opts: SpammerOptions = {}): AppLauncher {
  const intervalMs = opts.intervalMs ?? spammerIntervalMs;
  const data = payload(opts.payloadBytes ?? spammerPayloadBytes);
  return {
    launch(c, log) {
      if (!isSpammerImage(c.image)) return null;
      return runSpammer(c, { client, clock, intervalMs, data, log });
    },
  };
}

/**
 * runSpammer creates ConfigMaps <pod>-<n> every intervalMs (the next one only after the last call answered),
 * logging each create and each failure; it keeps going through errors, as a careless operator does.
 */
function runSpammer(
  c: AppContainer,
  o: { client: () => KubeClient; clock: Clock; intervalMs: number; data: string; log: (line: string) => void },
): () => void {
  let stopped = false;
  let timer: Timer | null = null;
  let n = 0;
  let failing = "";
  const line = (text: string) => o.log(`${rfc3339(o.clock.now())} ${text}`);
  line(
    `configmap-spammer (simulated by the lab): creating a ${o.data.length >> 10} KiB ConfigMap every ${o.intervalMs} ms in namespace ${c.namespace}`,
  );
  const tick = async () => {
    const name = `${c.pod}-${++n}`;
    try {
      await o.client().create("configmaps", c.namespace, {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name, labels: { app: "configmap-spammer" } },
        data: { blob: o.data },
      });
      if (failing) line(`writes work again after: ${failing}`);
      failing = "";
      line(`created configmap ${c.namespace}/${name}`);
    } catch (err) {
      if (err instanceof ApiError && err.code === 409) return; // a name left from an earlier run: take the next
      const text = errorText(err);
      // One line per failing streak and then one every 30 attempts, as a retry loop's logger would.
      if (text !== failing || n % 30 === 0) line(`failed to create configmap ${c.namespace}/${name}: ${text}`);
      failing = text;
    }
  };
  const arm = () => {
    if (stopped) return;
    timer = o.clock.after(o.intervalMs, () => void tick().finally(arm));
  };
  arm();
  return () => {
    stopped = true;
    timer?.cancel();
  };
}
