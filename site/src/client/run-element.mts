// <run-command>: a command block with a Run button that types the command into a terminal of the page
// (data-terminal, else "main", else the first) and presses Enter. The button is enabled while that
// terminal's shell is attached and no task's solution is typing into the page's terminals.
import { findTerminal, solutionRunning, watchTerminals } from "./terminal-registry.mts";

class RunCommand extends HTMLElement {
  private started = false;

  connectedCallback(): void {
    if (this.started) return;
    this.started = true;
    const button = this.querySelector<HTMLButtonElement>("[data-run]");
    const code = this.querySelector<HTMLElement>(".code");
    if (!button || !code) return;
    const text = commandText(code);
    const short = text.split("\n")[0] ?? "";
    button.setAttribute("aria-label", `Run in the terminal: ${short}${text.includes("\n") ? " …" : ""}`);
    const target = this.dataset["terminal"] || undefined;
    const update = () => {
      const t = findTerminal(target);
      const solving = solutionRunning();
      button.disabled = !t?.live() || solving !== null;
      button.title = !t
        ? ""
        : !t.live()
          ? "The terminal is not connected"
          : solving !== null
            ? `Wait: the solution of "${solving}" is typing`
            : "Type this into the terminal and press Enter";
    };
    watchTerminals(update);
    update();
    button.addEventListener("click", () => {
      const t = findTerminal(target);
      if (!t?.live() || solutionRunning() !== null) return;
      t.run(text);
      const box = t.element.getBoundingClientRect();
      if (box.bottom < 0 || box.top > window.innerHeight) t.element.scrollIntoView({ block: "nearest" });
      button.dataset["ran"] = "true";
    });
  }
}

/** commandText reads the command: the text of a code block (Shiki lines), else the plain text. */
function commandText(code: HTMLElement): string {
  const lines = code.querySelectorAll(".line");
  const raw = lines.length ? [...lines].map((l) => l.textContent ?? "").join("\n") : (code.textContent ?? "");
  return raw.replace(/\n+$/, "").trim();
}

if (!customElements.get("run-command")) customElements.define("run-command", RunCommand);
