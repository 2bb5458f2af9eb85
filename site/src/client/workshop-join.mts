// The join page (pages/workshop/index.astro): reads GET /api/workshop and /me, then shows one state — not a
// workshop server, no event open, the workshop is full, the join and resume forms, or joined (with the resume
// code once, right after joining, and the event's lessons). Errors are said per code (lib/workshop-api.ts
// joinProblem); a taken name opens the resume form with the code and name filled in.
import type { EventPublic, WorkshopInfo } from "../lib/workshop-api.ts";
import { joinProblem } from "../lib/workshop-api.ts";
import type { CatalogueLesson } from "../lib/workshop-links.ts";
import { eventLessons, safeNext } from "../lib/workshop-links.ts";
import { workshop } from "./auth.mts";

const root = document.querySelector<HTMLElement>("[data-workshop-join]");
if (root) void start(root);

async function start(root: HTMLElement): Promise<void> {
  const q = <T extends HTMLElement = HTMLElement>(name: string) => root.querySelector<T>(`[data-w-${name}]`) as T;
  const base = import.meta.env.BASE_URL;
  const catalogue = JSON.parse(root.dataset["catalogue"] ?? "[]") as CatalogueLesson[];
  const next = safeNext(new URL(location.href).searchParams.get("next") ?? "", base);
  const status = q("status");
  const sections = ["not-workshop", "full", "joined", "forms"] as const;
  const show = (which: (typeof sections)[number] | null) => {
    for (const s of sections) q(s).hidden = s !== which;
  };
  const say = (text: string) => {
    status.textContent = text;
    status.hidden = text === "";
  };

  let info: WorkshopInfo | null;
  try {
    info = await workshop.info();
  } catch (err) {
    say(`Cannot reach the lab server: ${(err as Error).message}`);
    return;
  }
  if (!info) {
    say("");
    show("not-workshop");
    return;
  }

  const joined = (event: EventPublic, name: string, resumeCode: string | null) => {
    say("");
    show("joined");
    q("joined-event").textContent = event.name;
    q("joined-name").textContent = name;
    q("resume-code").hidden = resumeCode === null;
    if (resumeCode !== null) {
      q("resume-code-text").textContent = resumeCode;
      q<HTMLButtonElement>("copy").onclick = async () => {
        try {
          await navigator.clipboard.writeText(resumeCode);
          q("copy-status").textContent = "Copied. Keep it somewhere safe too: the page will not show it again.";
        } catch {
          q("copy-status").textContent = "The browser blocked copying: write it down.";
        }
      };
    }
    q("next-line").hidden = next === null;
    if (next) q<HTMLAnchorElement>("next").href = next;
    const list = q("lessons");
    list.textContent = "";
    for (const lesson of eventLessons(event.lessons, catalogue)) {
      const li = document.createElement("li");
      if (lesson.href) {
        const a = document.createElement("a");
        a.href = lesson.href;
        a.textContent = lesson.title;
        li.append(a);
      } else {
        li.textContent = `${lesson.title} (not on this site)`;
      }
      list.append(li);
    }
    document.getElementById(resumeCode !== null ? "w-resume-code-heading" : "w-joined-heading")?.focus();
  };

  const me = await workshop.me().catch(() => null);
  if (me) {
    if (next && me.event.state === "open") {
      location.replace(next);
      return;
    }
    joined(me.event, me.learner.name, null);
    return;
  }

  const event = info.event;
  if (!event || event.state === "ended") {
    say(event ? `The workshop “${event.name}” has ended.` : "No workshop is open right now. Ask your instructor.");
    show(null);
    return;
  }
  if (info.full) {
    say("");
    show("full");
    return;
  }
  say("");
  show("forms");
  q("event-line").textContent =
    event.state === "scheduled"
      ? `Workshop “${event.name}” starts ${new Date(event.startsAt).toLocaleString()}.`
      : `Workshop “${event.name}”, until ${new Date(event.endsAt).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}.`;

  const joinForm = q<HTMLFormElement>("join-form");
  const resumeForm = q<HTMLFormElement>("resume-form");
  const field = (form: HTMLFormElement, name: string) => form.elements.namedItem(name) as HTMLInputElement;
  const fail = (errorEl: HTMLElement, err: unknown, form: HTMLFormElement) => {
    const p = joinProblem(err);
    if (p.kind === "full") {
      show("full");
      q("full-message").textContent = p.message;
      q("full").querySelector("h2")?.focus();
      return;
    }
    if (p.kind === "resume" && form === joinForm) {
      errorEl.textContent = p.message;
      const box = q<HTMLDetailsElement>("resume-box");
      box.open = true;
      field(resumeForm, "code").value = field(joinForm, "code").value;
      field(resumeForm, "name").value = field(joinForm, "name").value;
      q("resume-hint").textContent = "Enter the resume code you wrote down when you first joined.";
      field(resumeForm, "resumeCode").focus();
      return;
    }
    errorEl.textContent = p.message;
  };
  const busy = (form: HTMLFormElement, on: boolean) => {
    const button = form.querySelector<HTMLButtonElement>("button[type=submit]");
    if (button) button.disabled = on;
  };
  const required = (form: HTMLFormElement, names: string[], errorEl: HTMLElement): string[] | null => {
    const values = names.map((n) => field(form, n).value.trim());
    const missing = names.findIndex((_, i) => values[i] === "");
    if (missing < 0) return values;
    const label = form.querySelector(`label[for="${field(form, names[missing] as string).id}"]`)?.textContent;
    errorEl.textContent = `${label ?? "This field"} is needed.`;
    field(form, names[missing] as string).focus();
    return null;
  };

  joinForm.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const errorEl = q("join-error");
    errorEl.textContent = "";
    const values = required(joinForm, ["code", "name"], errorEl);
    if (!values) return;
    busy(joinForm, true);
    try {
      const answer = await workshop.join(values[0] as string, values[1] as string);
      joined(answer.event, answer.learner.name, answer.resumeCode);
    } catch (err) {
      fail(errorEl, err, joinForm);
    } finally {
      busy(joinForm, false);
    }
  });
  resumeForm.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const errorEl = q("resume-error");
    errorEl.textContent = "";
    const values = required(resumeForm, ["code", "name", "resumeCode"], errorEl);
    if (!values) return;
    busy(resumeForm, true);
    try {
      const answer = await workshop.resume(values[0] as string, values[1] as string, values[2] as string);
      if (next) {
        location.assign(next);
        return;
      }
      joined(answer.event, answer.learner.name, null);
    } catch (err) {
      fail(errorEl, err, resumeForm);
    } finally {
      busy(resumeForm, false);
    }
  });
}
