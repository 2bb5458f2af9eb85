// A lesson page: start the lab session as soon as the page loads (the header shows its progress), even
// before a component asks for it; and the splitter between the lesson text and the lab (lib/split-width.ts).
import { clampLessonWidth, lessonWidthKey, splitterStep } from "../lib/split-width.ts";
import { labSession, pageLab } from "./lab-session.mts";

const lab = pageLab();
if (lab) labSession(lab).catch(() => undefined);

const layout = document.querySelector<HTMLElement>("[data-lesson-layout]");
const splitter = document.querySelector<HTMLElement>("[data-splitter]");
const text = document.getElementById("lesson-text");
if (layout && splitter && text) setUpSplitter(layout, splitter, text);

function setUpSplitter(layout: HTMLElement, splitter: HTMLElement, text: HTMLElement): void {
  const rem = () => parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
  const apply = (px: number | null, save: boolean) => {
    const width = layout.clientWidth;
    if (px === null) layout.style.removeProperty("--lesson-width");
    else layout.style.setProperty("--lesson-width", `${clampLessonWidth(px, width, rem())}px`);
    if (save) {
      try {
        if (px === null) localStorage.removeItem(lessonWidthKey);
        else localStorage.setItem(lessonWidthKey, String(Math.round(px)));
      } catch {
        // Storage disabled: the width lasts for this page only.
      }
    }
    requestAnimationFrame(() => {
      const now = text.getBoundingClientRect().width;
      splitter.setAttribute("aria-valuenow", String(Math.round((now / Math.max(1, width)) * 100)));
    });
  };
  splitter.setAttribute("aria-valuemin", "0");
  splitter.setAttribute("aria-valuemax", "100");
  let stored: number | null = null;
  try {
    const raw = localStorage.getItem(lessonWidthKey);
    stored = raw === null ? null : Number(raw) || null;
  } catch {
    stored = null;
  }
  apply(stored, false);
  window.addEventListener("resize", () => {
    const saved = layout.style.getPropertyValue("--lesson-width");
    if (saved) apply(stored, false);
  });

  splitter.addEventListener("pointerdown", (ev) => {
    if (ev.button !== 0) return;
    ev.preventDefault();
    splitter.setPointerCapture(ev.pointerId);
    splitter.dataset["dragging"] = "true";
    const left = layout.getBoundingClientRect().left;
    const move = (e: PointerEvent) => {
      stored = e.clientX - left;
      apply(stored, false);
    };
    const up = () => {
      splitter.removeEventListener("pointermove", move);
      delete splitter.dataset["dragging"];
      if (stored !== null) apply(stored, true);
    };
    splitter.addEventListener("pointermove", move);
    splitter.addEventListener("pointerup", up, { once: true });
    splitter.addEventListener("pointercancel", up, { once: true });
  });
  splitter.addEventListener("dblclick", () => {
    stored = null;
    apply(null, true);
  });
  splitter.addEventListener("keydown", (ev) => {
    const current = text.getBoundingClientRect().width;
    const next = splitterStep(ev.key, current, layout.clientWidth, rem());
    if (next === undefined) return;
    ev.preventDefault();
    stored = next;
    apply(next, true);
  });
}
