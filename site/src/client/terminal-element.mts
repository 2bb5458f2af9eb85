// <lab-terminal>: an xterm.js 6 terminal attached to a shell of the page's lab session (TerminalLink does
// the protocol). Screen-reader mode is on; copy and paste work from the keyboard (Ctrl+Shift+C/V) and the
// bar's buttons; Esc then Tab leaves the terminal (EscapeThenTab). A reload reattaches to the same shell.
import { browserLink } from "./browser-link.mts";
import { FitAddon } from "@xterm/addon-fit";
import { Terminal } from "@xterm/xterm";
import "@xterm/xterm/css/xterm.css";
import { EscapeThenTab, escapeWindowMs } from "../lib/escape-then-tab.ts";
import type { LinkState } from "../lib/terminal-link.ts";
import { TerminalLink } from "../lib/terminal-link.ts";
import { wsUrl } from "./auth.mts";
import { labSession, pageLab } from "./lab-session.mts";
import { terminalFont, terminalTheme } from "./terminal-theme.mts";
import { notifyTerminals, registerTerminal } from "./terminal-registry.mts";

class LabTerminal extends HTMLElement {
  private started = false;

  connectedCallback(): void {
    if (this.started) return;
    this.started = true;
    void this.start();
  }

  private el<T extends HTMLElement = HTMLElement>(name: string): T {
    const el = this.querySelector<T>(`[data-${name}]`);
    if (!el) throw new Error(`lab-terminal: missing [data-${name}]`);
    return el;
  }

  private async start(): Promise<void> {
    const id = this.dataset["terminalId"] ?? "main";
    const title = this.querySelector(".title")?.textContent ?? "Terminal";
    const stateEl = this.el("state");
    const screen = this.el("screen");
    const reconnectBtn = this.el<HTMLButtonElement>("reconnect");
    const setState = (text: string, kind: "live" | "down" | "wait") => {
      stateEl.textContent = text;
      stateEl.dataset["kind"] = kind;
    };
    const rows = Number(this.dataset["rows"] ?? 18);
    screen.style.setProperty("--rows", String(rows));

    const lab = this.dataset["lab"] ?? pageLab();
    if (!lab) {
      setState("No lab on this page", "down");
      return;
    }
    setState("Starting the lab…", "wait");
    let sessionId: string;
    try {
      sessionId = (await labSession(lab)).session().id;
    } catch (err) {
      setState(`Lab unavailable: ${(err as Error).message}`, "down");
      reconnectBtn.hidden = false;
      reconnectBtn.textContent = "Try again";
      reconnectBtn.onclick = () => location.reload();
      return;
    }

    const term = new Terminal({
      screenReaderMode: true,
      fontFamily: terminalFont,
      // 13 px: 100 columns fit beside the lesson text on a 1280 px screen (pages/lessons/[slug].astro).
      fontSize: 13,
      lineHeight: 1.15,
      cursorBlink: true,
      scrollback: 5000,
      theme: terminalTheme,
    });
    const fit = new FitAddon();
    term.loadAddon(fit);
    screen.textContent = "";
    term.open(screen);
    term.textarea?.setAttribute("aria-label", `${title}: shell input`);
    safeFit(fit);

    let live = false;
    const link = new TerminalLink({
      url: (cols, rows) =>
        wsUrl(
          `/ws/terminal?session=${encodeURIComponent(sessionId)}&terminal=${encodeURIComponent(id)}&cols=${cols}&rows=${rows}`,
        ),
      ...browserLink,
      sink: { write: (bytes) => term.write(bytes), reset: () => term.reset() },
      onState: (s) => {
        live = s.kind === "live";
        reconnectBtn.hidden = !(s.kind === "gave-up" || s.kind === "exited");
        reconnectBtn.textContent = s.kind === "exited" ? "Start a new shell" : "Reconnect";
        const [text, kind] = describe(s);
        setState(text, kind);
        notifyTerminals();
      },
    });
    reconnectBtn.onclick = () => {
      link.connect(term.cols, term.rows);
      term.focus();
    };

    const escape = new EscapeThenTab(() => link.input("\x1b"));
    let escapeTimer: ReturnType<typeof setTimeout> | undefined;
    term.attachCustomKeyEventHandler((ev) => {
      if (ev.type !== "keydown") return true;
      const ctrlShift = (ev.ctrlKey || ev.metaKey) && ev.shiftKey && !ev.altKey;
      if (ctrlShift && ev.code === "KeyC") {
        ev.preventDefault();
        void copySelection();
        return false;
      }
      // Ctrl+Shift+V and Shift+Insert: let the browser paste into xterm's textarea (no permission prompt).
      if ((ctrlShift && ev.code === "KeyV") || (ev.shiftKey && ev.key === "Insert")) return false;
      if (ev.ctrlKey && ev.key === "Insert") {
        void copySelection();
        return false;
      }
      const decision = escape.key(ev.key, { ctrl: ev.ctrlKey, alt: ev.altKey, meta: ev.metaKey }, performance.now());
      if (decision === "swallow") {
        clearTimeout(escapeTimer);
        escapeTimer = setTimeout(() => escape.expire(performance.now()), escapeWindowMs + 20);
        ev.preventDefault();
        return false;
      }
      // "leave": returning false without preventDefault lets the browser move focus on.
      return decision === "terminal";
    });

    const flash = (text: string) => {
      const before = stateEl.textContent ?? "";
      const kind = (stateEl.dataset["kind"] as "live" | "down" | "wait") ?? "wait";
      setState(text, kind);
      setTimeout(() => {
        if (stateEl.textContent === text) setState(before, kind);
      }, 1500);
    };
    const copySelection = async () => {
      if (!term.hasSelection()) {
        flash("Select some text first");
        return;
      }
      try {
        await navigator.clipboard.writeText(term.getSelection());
        flash("Copied");
      } catch {
        flash("Copy blocked by the browser");
      }
    };
    this.el<HTMLButtonElement>("copy").onclick = () => void copySelection();
    this.el<HTMLButtonElement>("paste").onclick = async () => {
      try {
        term.paste(await navigator.clipboard.readText());
      } catch {
        flash("Press Ctrl+Shift+V in the terminal to paste");
      }
      term.focus();
    };

    term.onData((data) => link.input(data));
    term.onResize(({ cols, rows }) => link.resize(cols, rows));
    let pending = false;
    new ResizeObserver(() => {
      if (pending) return;
      pending = true;
      requestAnimationFrame(() => {
        pending = false;
        safeFit(fit);
      });
    }).observe(screen);

    registerTerminal({
      id,
      element: this,
      live: () => live,
      run: (text) => {
        const commands = text
          .split("\n")
          .map((l) => l.trimEnd())
          .filter((l) => l.trim() !== "");
        if (commands.length) link.input(`${commands.join("\r")}\r`);
      },
      focus: () => term.focus(),
    });

    window.addEventListener("pagehide", () => link.close());
    window.addEventListener("pageshow", (ev) => {
      if (ev.persisted) link.connect(term.cols, term.rows);
    });
    link.connect(term.cols, term.rows);
  }
}

function safeFit(fit: FitAddon): void {
  try {
    fit.fit();
  } catch {
    // Not laid out yet (hidden): the ResizeObserver fits it once it has a size.
  }
}

function describe(s: LinkState): [string, "live" | "down" | "wait"] {
  switch (s.kind) {
    case "connecting":
      return ["Connecting…", "wait"];
    case "live":
      return ["Connected", "live"];
    case "reconnecting":
      return [`Connection lost; retrying in ${Math.max(1, Math.round(s.inMs / 1000))} s…`, "wait"];
    case "exited":
      return [`The shell ended${s.code !== null ? ` (exit ${s.code})` : ""}`, "down"];
    case "gave-up":
      return ["Disconnected", "down"];
    case "closed":
      return ["Closed", "down"];
  }
}

if (!customElements.get("lab-terminal")) customElements.define("lab-terminal", LabTerminal);
