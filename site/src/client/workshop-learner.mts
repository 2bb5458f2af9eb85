// Workshop mode on a lesson page (GET /api/workshop answers workshop:true): the lab waits until the learner is
// known (workshopReady); a learner who has not joined is sent to the join page, which brings them back here.
// The lesson header's workshop bar shows the event, the time left and the learner's name, and its
// Ask for help button raises or lowers their hand (POST/DELETE /api/workshop/help). Outside workshop mode
// (404) nothing changes and workshopReady resolves at once, as it does for a student the server knows who is no
// event's learner (launched from a course, docs/lti.md).
import type { MeAnswer } from "../lib/workshop-api.ts";
import { timeLeft } from "../lib/workshop-board.ts";
import { joinPath } from "../lib/workshop-links.ts";
import { workshop } from "./auth.mts";

/** meRefreshMs is how often the bar re-reads the learner (the instructor may answer a hand or extend the event). */
const meRefreshMs = 20_000;

/** workshopReady resolves when the lab may start: not in workshop mode, or joined. It never resolves while the page leaves for the join page. */
export const workshopReady: Promise<void> = gate();

async function gate(): Promise<void> {
  let info;
  try {
    info = await workshop.info();
  } catch {
    return; // The server is unreachable: the lab's own calls will say so.
  }
  if (!info) return;
  const me = await workshop.me().catch(() => null);
  // A student launched from a course (LTI, docs/lti.md) is a learner of no event: the lab starts, with no bar.
  if (
    !me &&
    (await fetch("/api/me").then(
      (r) => r.ok,
      () => false,
    ))
  )
    return;
  if (!me) {
    location.replace(joinPath(`${location.pathname}${location.search}`, import.meta.env.BASE_URL));
    return new Promise<void>(() => undefined);
  }
  showBar(me);
}

function showBar(first: MeAnswer): void {
  const bar = document.querySelector<HTMLElement>("[data-workshop-bar]");
  if (!bar) return;
  const part = <T extends HTMLElement>(name: string) => bar.querySelector<T>(`[data-ws-${name}]`) as T;
  const eventEl = part("event");
  const leftEl = part("left");
  const nameEl = part("name");
  const button = part<HTMLButtonElement>("help");
  const status = part("help-status");
  let me = first;
  let busy = false;

  const paint = () => {
    eventEl.textContent = me.event.name;
    leftEl.textContent = me.event.state === "ended" ? "ended" : timeLeft(me.event.endsAt, Date.now());
    nameEl.textContent = me.learner.name;
    const pending = me.help !== null;
    button.setAttribute("aria-pressed", String(pending));
    button.textContent = pending ? "Cancel help request" : "Ask for help";
    button.disabled = busy;
    if (!busy) status.textContent = pending ? "Help requested: your instructor can see it." : "";
  };
  paint();
  bar.hidden = false;

  button.addEventListener("click", async () => {
    if (busy) return;
    const raise = me.help === null;
    busy = true;
    paint();
    status.textContent = raise ? "Asking for help…" : "Cancelling…";
    try {
      if (raise) await workshop.askHelp();
      else await workshop.cancelHelp();
      me = { ...me, help: raise ? { at: new Date().toISOString(), message: "" } : null };
      busy = false;
      paint();
    } catch (err) {
      busy = false;
      paint();
      status.textContent = `Could not ${raise ? "ask for help" : "cancel"}: ${(err as Error).message}`;
    }
  });

  setInterval(() => {
    leftEl.textContent = me.event.state === "ended" ? "ended" : timeLeft(me.event.endsAt, Date.now());
  }, 15_000);
  setInterval(async () => {
    if (busy || document.hidden) return;
    const next = await workshop.me().catch(() => undefined);
    if (next === null) location.replace(joinPath(`${location.pathname}${location.search}`, import.meta.env.BASE_URL));
    if (!next || busy) return;
    me = next;
    paint();
  }, meRefreshMs);
}
