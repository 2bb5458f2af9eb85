// The course map's progress badges: first from localStorage (instant, works offline), then merged with the
// lab server's copy (GET /api/labs + /api/progress) and saved back.
import type { StoredProgress } from "../lib/progress.ts";
import { describeProgress, fromServer, mergeProgress, readStored, writeStored } from "../lib/progress.ts";
import { api, authReady } from "./auth.mts";

function paint(progress: StoredProgress): void {
  for (const card of document.querySelectorAll<HTMLElement>(".lesson-card[data-lab]")) {
    const p = describeProgress(progress[card.dataset["lab"] ?? ""]);
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
  const local = readStored(localStorage);
  paint(local);
  await authReady;
  try {
    const [labs, server] = await Promise.all([api.labs(), api.progress()]);
    const merged = mergeProgress(local, fromServer(labs, server));
    writeStored(localStorage, merged);
    paint(merged);
  } catch {
    // The server is unreachable (or this is a static preview): the local copy stays on screen.
  }
}

void load();
