// <lab-tasks>: the lab's tasks with live status (pushed by /ws/cluster when the server's automatic checks
// change a result), Check with the check's one-line reason, hints one at a time, Solve (the server types the
// scripted solution into a visible terminal) and Reset lab. Every result is also said in an ARIA live region,
// and passed tasks are saved to localStorage for the course map.
import type { LabSummary, TaskResult, TaskState } from "../../../engine/lab-engine/index.ts";
import { readStored, withTask, writeStored } from "../lib/progress.ts";
import { api } from "./auth.mts";
import type { LabSession } from "./lab-session.mts";
import { labSession } from "./lab-session.mts";
import { findTerminal } from "./terminal-registry.mts";

interface TaskParts {
  li: HTMLLIElement;
  title: string;
  mark: HTMLElement;
  status: HTMLElement;
  result: HTMLElement;
  check: HTMLButtonElement;
  hint: HTMLButtonElement;
  solve: HTMLButtonElement;
  hints: HTMLOListElement;
  hintCount: number;
  passed: boolean;
}

function h<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (cls) el.className = cls;
  if (text !== undefined) el.textContent = text;
  return el;
}

/** button makes a task button: its visible label is short, its accessible name adds the task ("Check: …"). */
function button(label: string, context: string): HTMLButtonElement {
  const b = h("button");
  b.type = "button";
  b.dataset["context"] = context;
  setLabel(b, label);
  return b;
}

/**
 * setDisabled marks a button unavailable with aria-disabled rather than `disabled`, so a keyboard user who just
 * pressed it keeps their place (a disabled button drops focus). Click handlers check `isDisabled`.
 */
function setDisabled(b: HTMLButtonElement, off: boolean): void {
  if (off) b.setAttribute("aria-disabled", "true");
  else b.removeAttribute("aria-disabled");
}

function isDisabled(b: HTMLButtonElement): boolean {
  return b.getAttribute("aria-disabled") === "true";
}

function setLabel(b: HTMLButtonElement, label: string): void {
  b.textContent = label;
  b.setAttribute("aria-label", `${label}: ${b.dataset["context"] ?? ""}`);
}

class LabTasks extends HTMLElement {
  private started = false;
  private lab!: LabSession;
  private labId = "";
  private tasks = new Map<string, TaskParts>();

  connectedCallback(): void {
    if (this.started) return;
    this.started = true;
    void this.start();
  }

  private q<T extends HTMLElement = HTMLElement>(name: string): T {
    const el = this.querySelector<T>(`[data-${name}]`);
    if (!el) throw new Error(`lab-tasks: missing [data-${name}]`);
    return el;
  }

  private say(text: string): void {
    // Clear first so the same sentence twice is announced twice.
    const live = this.q("live");
    live.textContent = "";
    setTimeout(() => (live.textContent = text), 30);
  }

  private async start(): Promise<void> {
    this.labId = this.dataset["lab"] ?? "";
    const list = this.q<HTMLOListElement>("list");
    let summary: LabSummary;
    let states: TaskState[];
    try {
      this.lab = await labSession(this.labId);
      [summary, states] = await Promise.all([api.lab(this.labId), api.tasks(this.lab.session().id)]);
    } catch (err) {
      list.replaceChildren(h("li", "result", `The tasks could not be loaded: ${(err as Error).message}`));
      list.firstElementChild?.setAttribute("data-kind", "error");
      return;
    }
    list.replaceChildren();
    summary.tasks.forEach((t, i) => {
      const state = states.find((s) => s.task === t.id);
      this.createTask(list, i + 1, t.id, t.title, t.hintCount, state);
    });
    this.updateCount();
    this.setupReset();
    this.lab.subscribe((msg) => {
      if (msg.type === "task") this.showResult(msg.result, "auto");
      if (msg.type === "session") for (const r of msg.session.tasks) this.showResult(r, "quiet");
    });
  }

  private createTask(
    list: HTMLOListElement,
    n: number,
    id: string,
    title: string,
    hintCount: number,
    state: TaskState | undefined,
  ): void {
    const li = h("li", "task");
    li.dataset["task"] = id;
    const head = h("div", "task-head");
    const mark = h("span", "task-mark", String(n));
    mark.setAttribute("aria-hidden", "true");
    const heading = h("h3", "task-title", title);
    const status = h("span", "task-status", "Not done yet");
    head.append(mark, heading, status);

    const actions = h("div", "task-actions");
    const check = button("Check", title);
    const hint = button("Show a hint", title);
    const solve = button("Solve", title);
    actions.append(check, hint, solve);
    const result = h("p", "result");
    result.hidden = true;
    const hints = h("ol", "hints");
    hints.setAttribute("aria-label", `Hints for ${title}`);
    li.append(head, actions, result, hints);
    list.append(li);

    const parts: TaskParts = { li, title, mark, status, result, check, hint, solve, hints, hintCount, passed: false };
    this.tasks.set(id, parts);
    for (const text of state?.hints ?? []) hints.append(h("li", undefined, text));
    this.updateHintButton(parts);
    if (state) this.showResult(state, "quiet");

    check.addEventListener("click", () => isDisabled(check) || void this.check(id));
    hint.addEventListener("click", () => isDisabled(hint) || void this.hint(id));
    solve.addEventListener("click", () => isDisabled(solve) || void this.solve(id));
  }

  private updateHintButton(p: TaskParts): void {
    const shown = p.hints.children.length;
    if (p.hintCount === 0) {
      p.hint.hidden = true;
    } else if (shown >= p.hintCount) {
      setLabel(p.hint, `All ${p.hintCount} hints shown`);
      setDisabled(p.hint, true);
    } else {
      setLabel(p.hint, `${shown === 0 ? "Show a hint" : "Show another hint"} (${shown + 1} of ${p.hintCount})`);
      setDisabled(p.hint, false);
    }
  }

  /** showResult shows a check result; "auto" results (server-side checks) are announced only when they pass. */
  private showResult(r: TaskResult, how: "asked" | "auto" | "quiet"): void {
    const p = this.tasks.get(r.task);
    if (!p) return;
    const newlyPassed = r.passed && !p.passed;
    p.passed = p.passed || r.passed;
    p.li.dataset["passed"] = String(p.passed);
    p.mark.textContent = p.passed ? "✓" : String([...this.tasks.keys()].indexOf(r.task) + 1);
    p.status.textContent = p.passed ? "Done" : "Not done yet";
    // A failing background check is not news: show it only once the learner asked (then keep it current).
    if (how === "asked" || r.passed || !p.result.hidden) {
      p.result.hidden = false;
      p.result.dataset["kind"] = r.passed ? "pass" : "fail";
      p.result.textContent = `${r.passed ? "Passed" : "Not yet"}: ${r.message}`;
    }
    if (how === "asked") this.say(`${p.title}: ${r.passed ? "passed" : "not yet"}. ${r.message}`);
    else if (how === "auto" && newlyPassed) this.say(`${p.title}: passed. ${r.message}`);
    if (newlyPassed) {
      writeStored(localStorage, withTask(readStored(localStorage), this.labId, r.task, true, this.tasks.size));
      this.updateCount();
    }
  }

  private updateCount(): void {
    const done = [...this.tasks.values()].filter((t) => t.passed).length;
    this.q("count").textContent = `${done} of ${this.tasks.size} done`;
    const stored = readStored(localStorage);
    if (!stored[this.labId])
      writeStored(localStorage, { ...stored, [this.labId]: { passed: [], total: this.tasks.size } });
  }

  private async busy(b: HTMLButtonElement, label: string, run: () => Promise<void>): Promise<void> {
    const before = b.textContent ?? "";
    setDisabled(b, true);
    setLabel(b, label);
    try {
      await run();
    } finally {
      setDisabled(b, false);
      setLabel(b, before);
    }
  }

  private async check(id: string): Promise<void> {
    const p = this.tasks.get(id);
    if (!p) return;
    await this.busy(p.check, "Checking…", async () => {
      try {
        this.showResult(await api.check(this.lab.session().id, id), "asked");
      } catch (err) {
        this.showError(p, `The check could not run: ${(err as Error).message}`);
      }
    });
  }

  private async hint(id: string): Promise<void> {
    const p = this.tasks.get(id);
    if (!p) return;
    try {
      const answer = await api.hint(this.lab.session().id, id);
      p.hintCount = answer.total;
      if (answer.index >= p.hints.children.length) p.hints.append(h("li", undefined, answer.hint));
      this.say(`Hint ${answer.index + 1} of ${answer.total}: ${answer.hint}`);
    } catch (err) {
      this.showError(p, `No hint: ${(err as Error).message}`);
    }
    this.updateHintButton(p);
  }

  private async solve(id: string): Promise<void> {
    const p = this.tasks.get(id);
    if (!p) return;
    const terminalId = this.dataset["terminal"] || "main";
    const term = findTerminal(terminalId);
    if (term) {
      const box = term.element.getBoundingClientRect();
      if (box.bottom < 0 || box.top > window.innerHeight) term.element.scrollIntoView({ block: "nearest" });
    }
    this.say(`Solving ${p.title}: watch the terminal.`);
    await this.busy(p.solve, "Solving… watch the terminal", async () => {
      try {
        const answer = await api.solve(this.lab.session().id, id, terminalId);
        this.showResult(answer.result, "asked");
      } catch (err) {
        this.showError(p, `The solution could not run: ${(err as Error).message}`);
      }
    });
  }

  private showError(p: TaskParts, text: string): void {
    p.result.hidden = false;
    p.result.dataset["kind"] = "error";
    p.result.textContent = text;
    this.say(text);
  }

  private setupReset(): void {
    const reset = this.q<HTMLButtonElement>("reset");
    let armed: ReturnType<typeof setTimeout> | undefined;
    const disarm = () => {
      clearTimeout(armed);
      armed = undefined;
      reset.textContent = "Reset lab";
      delete reset.dataset["armed"];
    };
    reset.addEventListener("click", async () => {
      if (isDisabled(reset)) return;
      if (!armed) {
        reset.textContent = "Really reset? Click again";
        reset.dataset["armed"] = "true";
        this.say("Press Reset lab again to confirm: the cluster and the shells are replaced. Your progress is kept.");
        armed = setTimeout(disarm, 5000);
        return;
      }
      disarm();
      setDisabled(reset, true);
      reset.textContent = "Resetting…";
      try {
        await this.lab.reset();
        this.say("The lab was reset: a fresh cluster and fresh shells. Passed tasks stay passed.");
      } catch (err) {
        this.say(`The reset failed: ${(err as Error).message}`);
      } finally {
        setDisabled(reset, false);
        reset.textContent = "Reset lab";
      }
    });
  }
}

if (!customElements.get("lab-tasks")) customElements.define("lab-tasks", LabTasks);
