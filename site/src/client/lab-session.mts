// One lab session per lab on a page, shared by every component: it is opened (POST /api/sessions) once,
// and its /ws/cluster stream (status, events, task results, session changes) is fanned out to subscribers.
// The stream reconnects with backoff; the latest status is kept for components that subscribe late.
import type { ClusterMessage, ClusterStatus, Session } from "../../../engine/lab-engine/index.ts";
import { reconnectDelayMs } from "../lib/backoff.ts";
import { api, authReady, setPageStatus, wsUrl } from "./auth.mts";
import { workshopReady } from "./workshop-learner.mts";

/** LabSession is a page's handle on one lab session. */
export interface LabSession {
  readonly lab: string;
  /** session is the latest Session (it changes after a reset). */
  session(): Session;
  /** latestStatus is the last status sample, if any arrived. */
  latestStatus(): ClusterStatus | undefined;
  /** subscribe receives every /ws/cluster message; it returns an unsubscribe function. */
  subscribe(listener: (msg: ClusterMessage) => void): () => void;
  /** reset puts the lab back to its initial state; with clearProgress every task becomes not done too. */
  reset(clearProgress?: boolean): Promise<Session>;
}

const sessions = new Map<string, Promise<LabSession>>();

/** pageLab is the lab of the lesson on this page (from <article data-lab>), if any. */
export function pageLab(): string | undefined {
  return document.querySelector<HTMLElement>("[data-lab]")?.dataset["lab"];
}

/** labSession returns the page's session for lab, opening it on first use. */
export function labSession(lab: string): Promise<LabSession> {
  let s = sessions.get(lab);
  if (!s) {
    s = open(lab);
    sessions.set(lab, s);
    // A failed start can be retried by asking again.
    s.catch(() => sessions.delete(lab));
  }
  return s;
}

async function open(lab: string): Promise<LabSession> {
  await authReady;
  await workshopReady;
  setPageStatus("Starting your cluster…");
  let session: Session;
  try {
    session = await api.openSession(lab);
  } catch (err) {
    setPageStatus(`Lab unavailable: ${(err as Error).message}`, "error");
    throw err;
  }
  setPageStatus(
    `Lab ready · ${session.members.length} members · ${session.backend === "real" ? "real etcd" : "etcd-lab"}`,
    "ok",
  );
  const listeners = new Set<(msg: ClusterMessage) => void>();
  let latest: ClusterStatus | undefined;
  let attempt = 0;

  const connect = () => {
    const ws = new WebSocket(wsUrl(`/ws/cluster?session=${encodeURIComponent(session.id)}`));
    ws.onmessage = (ev) => {
      let msg: ClusterMessage;
      try {
        msg = JSON.parse(String(ev.data)) as ClusterMessage;
      } catch {
        return;
      }
      attempt = 0;
      if (msg.type === "status") latest = msg.status;
      if (msg.type === "hello" || msg.type === "session") session = msg.session;
      for (const l of listeners) l(msg);
    };
    ws.onclose = () => {
      const delay = reconnectDelayMs(attempt++, Math.random);
      if (attempt > 3) setPageStatus("Lost contact with the lab server; retrying…", "error");
      setTimeout(connect, delay);
    };
  };
  connect();

  return {
    lab,
    session: () => session,
    latestStatus: () => latest,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async reset(clearProgress = false) {
      setPageStatus("Resetting the lab…");
      session = await api.reset(session.id, clearProgress);
      setPageStatus("Lab reset: a fresh cluster and fresh shells.", "ok");
      return session;
    },
  };
}
