// The course map's progress badges, from the lab server (GET /api/labs + /api/progress), the only record of
// progress: read when the page is shown, again when it comes back from the back/forward cache or into view.
import type { LabTally } from "../lib/progress.ts";
import { describeProgress, fromServer, legacyStorageKey } from "../lib/progress.ts";
import { api, authReady } from "./auth.mts";
import { workshopReady } from "./workshop-learner.mts";

function paint(progress: Record<string, LabTally> | null): void {
  for (const card of document.querySelectorAll<HTMLElement>(".lesson-card[data-lab]")) {
    const p = progress
      ? describeProgress(progress[card.dataset["lab"] ?? ""])
      : { text: "Progress unavailable (is the lab server running?)", percent: 0, state: "new" as const };
    const text = card.querySelector<HTMLElement>("[data-progress]");
    const bar = card.querySelector<HTMLElement>("[data-progress-bar]");
    if (text) {
      text.textContent = p.text;
      text.dataset["state"] = p.state;
    }
    if (bar) bar.style.width = `${p.percent}%`;
  }
}

async function load(): Promise<void> {
  await authReady;
  await workshopReady;
  try {
    const [labs, server] = await Promise.all([api.labs(), api.progress()]);
    paint(fromServer(labs, server));
  } catch {
    paint(null);
  }
}

try {
  localStorage.removeItem(legacyStorageKey); // a stale browser copy from an earlier version
} catch {
  // Storage disabled: nothing to remove.
}
void load();
window.addEventListener("pageshow", (ev) => {
  if (ev.persisted) void load();
});
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") void load();
});
