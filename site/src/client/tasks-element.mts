// <lab-tasks>: the lab's tasks with live status (pushed by /ws/cluster when the server's automatic checks
// change a result), each task's goal (what to produce), Check with the check's one-line reason, hints one at a
// time, Solve (the server types the scripted solution into a visible terminal; one at a time on the page),
// Reset lab and Start over (a reset that also clears the lab's progress, as `lab reset --clear-progress`). The
// server is the only record of progress: the list is re-read from it after a reset or when the tab comes back
// into view. Results are said in an ARIA live region.
import type { LabSummary, TaskResult, TaskState } from "../../../engine/lab-engine/index.ts";
import { describeResult } from "../lib/task-result.ts";
import { api } from "./auth.mts";
import type { LabSession } from "./lab-session.mts";
import { labSession } from "./lab-session.mts";
import { setMarkdown } from "./markdown-dom.mts";
import { beginSolution, endSolution, findTerminal, solutionRunning, watchTerminals } from "./terminal-registry.mts";

interface TaskParts {
  li: HTMLLIElement;
  n: number;
  title: string;
  mark: HTMLElement;
  status: HTMLElement;
  goal: HTMLElement;
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
  private refreshing: Promise<void> | null = null;

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
    summary.tasks.forEach((t, i) => this.createTask(list, i + 1, t.id, t.title, t.hintCount));
    this.apply(states, "quiet");
    this.setupArmed(
      this.q<HTMLButtonElement>("reset"),
      "Reset lab",
      "Really reset? Click again",
      "Press Reset lab again to confirm: the cluster and the shells are replaced. Your progress is kept.",
      "Resetting…",
      async () => {
        await this.lab.reset();
        await this.refresh();
        this.say(
          "The lab was reset: a fresh cluster and fresh shells. Passed tasks stay passed; Check grades the new cluster.",
        );
      },
    );
    this.setupArmed(
      this.q<HTMLButtonElement>("start-over"),
      "Start over",
      "Really start over? Click again",
      "Press Start over again to confirm: the cluster and the shells are replaced, and every task of this lab becomes not done, its hints hidden.",
      "Starting over…",
      async () => {
        await this.lab.reset(true);
        await this.refresh();
        this.say("The lab starts over: a fresh cluster and fresh shells, and no task done yet.");
      },
    );
    this.lab.subscribe((msg) => {
      if (msg.type === "task") this.showResult(msg.result, "auto");
      // After a reset (the shell's `lab reset --clear-progress` too) the server's copy is re-read.
      if (msg.type === "session" && msg.session.state === "ready") void this.refresh();
    });
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") void this.refresh();
    });
    watchTerminals(() => this.updateSolveButtons());
    this.updateSolveButtons();
  }

  /** refresh re-reads every task's state (results and revealed hints) from the server. */
  private refresh(): Promise<void> {
    this.refreshing ??= (async () => {
      try {
        this.apply(await api.tasks(this.lab.session().id), "quiet");
      } catch {
        // The server is busy (a reset in flight) or unreachable: the next session message or visit retries.
      } finally {
        this.refreshing = null;
      }
    })();
    return this.refreshing;
  }

  private apply(states: readonly TaskState[], how: "quiet"): void {
    for (const s of states) {
      const p = this.tasks.get(s.task);
      if (!p) continue;
      p.hintCount = s.hintCount;
      if (s.hints.length !== p.hints.children.length) {
        p.hints.replaceChildren(...s.hints.map((text) => this.hintItem(text)));
      }
      this.updateHintButton(p);
      this.showResult(s, how);
    }
  }

  private hintItem(text: string): HTMLLIElement {
    const li = h("li");
    setMarkdown(li, text);
    return li;
  }

  private createTask(list: HTMLOListElement, n: number, id: string, title: string, hintCount: number): void {
    const li = h("li", "task");
    li.dataset["task"] = id;
    const head = h("div", "task-head");
    const mark = h("span", "task-mark", String(n));
    mark.setAttribute("aria-hidden", "true");
    const heading = h("h3", "task-title", title);
    const status = h("span", "task-status", "Not done yet");
    head.append(mark, heading, status);
    const goal = h("p", "task-goal");
    goal.hidden = true;

    const actions = h("div", "task-actions");
    const check = button("Check", title);
    const hint = button("Show a hint", title);
    const solve = button("Solve", title);
    actions.append(check, hint, solve);
    const result = h("p", "result");
    result.hidden = true;
    const hints = h("ol", "hints");
    hints.setAttribute("aria-label", `Hints for ${title}`);
    li.append(head, goal, actions, result, hints);
    list.append(li);

    const parts: TaskParts = {
      li,
      n,
      title,
      mark,
      status,
      goal,
      result,
      check,
      hint,
      solve,
      hints,
      hintCount,
      passed: false,
    };
    this.tasks.set(id, parts);
    this.updateHintButton(parts);

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

  /** updateSolveButtons disables every Solve (and Reset) while any solution on the page is typing. */
  private updateSolveButtons(): void {
    const running = solutionRunning();
    for (const p of this.tasks.values()) {
      setDisabled(p.solve, running !== null);
      if (running !== null) p.solve.title = `Wait: the solution of "${running}" is typing`;
      else p.solve.removeAttribute("title");
    }
    const reset = this.querySelector<HTMLButtonElement>("[data-reset]");
    if (reset && reset.dataset["working"] !== "true") setDisabled(reset, running !== null);
  }

  /**
   * showResult shows the server's result for a task (the server's word is final: a cleared progress makes a
   * task not done here too); "auto" results (server-side checks) are announced only when they pass.
   */
  private showResult(r: TaskResult, how: "asked" | "auto" | "quiet"): void {
    const p = this.tasks.get(r.task);
    if (!p) return;
    const s = this.lab.session();
    const view = describeResult(r, { createdAt: s.createdAt, resetAt: s.resetAt ?? null }, new Date());
    // The goal comes with every result, its {{params}} filled in for this session by the server.
    if (r.goal !== undefined) {
      if (r.goal && p.goal.dataset["text"] !== r.goal) {
        setMarkdown(p.goal, r.goal);
        p.goal.dataset["text"] = r.goal;
      }
      p.goal.hidden = !r.goal;
    }
    const newlyPassed = view.passed && !p.passed;
    p.passed = view.passed;
    p.li.dataset["passed"] = String(p.passed);
    p.mark.textContent = p.passed ? "✓" : String(p.n);
    p.status.textContent = view.status;
    if (view.kind === null) {
      p.result.hidden = true;
    } else if (how === "asked" || view.passed || !p.result.hidden) {
      // A failing background check is not news: show it only once the learner asked (then keep it current).
      p.result.hidden = false;
      p.result.dataset["kind"] = view.kind;
      setMarkdown(p.result, view.text);
    }
    if (how === "asked") {
      const spoken =
        view.kind === "fail"
          ? `not yet. ${r.message}`
          : view.kind === "pass"
            ? `passed. ${r.current?.message ?? r.message}`
            : view.text;
      this.say(`${p.title}: ${spoken}`);
    } else if (how === "auto" && newlyPassed) this.say(`${p.title}: passed. ${r.message}`);
    this.updateCount();
  }

  private updateCount(): void {
    const done = [...this.tasks.values()].filter((t) => t.passed).length;
    this.q("count").textContent = `${done} of ${this.tasks.size} done`;
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
      if (answer.index >= p.hints.children.length) p.hints.append(this.hintItem(answer.hint));
      this.say(`Hint ${answer.index + 1} of ${answer.total}: ${answer.hint}`);
    } catch (err) {
      this.showError(p, `No hint: ${(err as Error).message}`);
    }
    this.updateHintButton(p);
  }

  private async solve(id: string): Promise<void> {
    const p = this.tasks.get(id);
    if (!p) return;
    if (!beginSolution(p.title)) {
      this.showError(p, `Wait: the solution of "${solutionRunning()}" is still typing.`);
      return;
    }
    try {
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
    } finally {
      endSolution();
    }
  }

  private showError(p: TaskParts, text: string): void {
    p.result.hidden = false;
    p.result.dataset["kind"] = "error";
    setMarkdown(p.result, text);
    this.say(text);
  }

  /** setupArmed wires a button that asks for a second click (within 5 s) before it acts. */
  private setupArmed(
    b: HTMLButtonElement,
    label: string,
    armedLabel: string,
    armedSay: string,
    workingLabel: string,
    action: () => Promise<void>,
  ): void {
    let armed: ReturnType<typeof setTimeout> | undefined;
    const disarm = () => {
      clearTimeout(armed);
      armed = undefined;
      b.textContent = label;
      delete b.dataset["armed"];
    };
    b.addEventListener("click", async () => {
      if (isDisabled(b)) return;
      if (!armed) {
        b.textContent = armedLabel;
        b.dataset["armed"] = "true";
        this.say(armedSay);
        armed = setTimeout(disarm, 5000);
        return;
      }
      disarm();
      setDisabled(b, true);
      b.dataset["working"] = "true";
      b.textContent = workingLabel;
      try {
        await action();
      } catch (err) {
        this.say(`${label} failed: ${(err as Error).message}`);
      } finally {
        delete b.dataset["working"];
        setDisabled(b, false);
        b.textContent = label;
        this.updateSolveButtons();
      }
    });
  }
}

if (!customElements.get("lab-tasks")) customElements.define("lab-tasks", LabTasks);
