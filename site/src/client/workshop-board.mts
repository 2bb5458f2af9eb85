// The instructor board (pages/workshop/board/index.astro). Signs in with the fragment's admin token (then removes
// it from the address), finds the open event or offers the new-event form, and keeps the board live over
// WS /ws/workshop/board (reconnecting with backoff, "Live"/"Reconnecting" shown). Rows are keyed by learner and
// updated in place, so focus survives updates; raised hands are highlighted and announced. Actions: a read-only
// terminal view (xterm.js on /ws/workshop/terminal), reset a learner's lab, end their session, clear a raised
// hand, extend the event, end it for all (confirmed in a dialog), download the CSV.
import { browserLink } from "./browser-link.mts";
import { FitAddon } from "@xterm/addon-fit";
import { Terminal } from "@xterm/xterm";
import "@xterm/xterm/css/xterm.css";
import { ApiFailure } from "../lib/api-client.ts";
import { reconnectDelayMs } from "../lib/backoff.ts";
import { TerminalLink } from "../lib/terminal-link.ts";
import type { Board, BoardRow, EventAdmin, NewEvent } from "../lib/workshop-api.ts";
import { boardSocketPath, exportCsvPath, terminalViewPath } from "../lib/workshop-api.ts";
import type { RowView } from "../lib/workshop-board.ts";
import {
  boardSummary,
  extendedEnd,
  helpAnnouncements,
  localDateTimeInput,
  rowView,
  sortRows,
  timeLeft,
} from "../lib/workshop-board.ts";
import type { CatalogueLesson } from "../lib/workshop-links.ts";
import { lessonTitleForLab } from "../lib/workshop-links.ts";
import { workshop, wsUrl } from "./auth.mts";
import { terminalFont, terminalTheme } from "./terminal-theme.mts";

/** tickMs is how often relative times and the time left are repainted between board pushes. */
const tickMs = 5_000;

const root = document.querySelector<HTMLElement>("[data-board]");
if (root) void start(root);

function q<T extends HTMLElement = HTMLElement>(root: ParentNode, name: string): T {
  const el = root.querySelector<T>(`[data-b-${name}]`);
  if (!el) throw new Error(`board: missing [data-b-${name}]`);
  return el;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

async function start(root: HTMLElement): Promise<void> {
  const el = <T extends HTMLElement = HTMLElement>(name: string) => q<T>(root, name);
  const catalogue = JSON.parse(root.dataset["catalogue"] ?? "[]") as CatalogueLesson[];
  const status = el("status");
  const say = (text: string) => {
    status.textContent = text;
    status.hidden = text === "";
  };
  const sections = ["signin", "create", "event"] as const;
  const show = (which: (typeof sections)[number]) => {
    for (const s of sections) el(s).hidden = s !== which;
  };

  const token = new URLSearchParams(location.hash.slice(1)).get("admin");
  if (token !== null) {
    try {
      await workshop.adminLogin(token);
    } catch (err) {
      history.replaceState(history.state, "", `${location.pathname}${location.search}`);
      say("");
      show("signin");
      el("signin-message").textContent =
        err instanceof ApiFailure && err.code === "bad_token"
          ? "That admin link is not right (the token does not match). Copy the admin URL the lab server printed again."
          : `Signing in failed: ${message(err)}`;
      return;
    }
    history.replaceState(history.state, "", `${location.pathname}${location.search}`);
  }

  let events: EventAdmin[];
  try {
    events = await workshop.events();
  } catch (err) {
    say("");
    show("signin");
    if (err instanceof ApiFailure && err.status === 404) {
      el("signin-message").textContent = "This lab server is not running a workshop (start it with --workshop).";
    } else if (!(err instanceof ApiFailure && (err.status === 401 || err.status === 403))) {
      el("signin-message").textContent = `Cannot read the workshops: ${message(err)}`;
    }
    return;
  }
  say("");
  const current = events.find((e) => e.state !== "ended");
  const board = new BoardView(root, catalogue, () => void workshop.events().then(showCreate, () => showCreate([])));
  const showCreate = (past: EventAdmin[]) => {
    show("create");
    setUpCreate(root, past, (event) => {
      show("event");
      board.open(event);
    });
  };
  if (current) {
    show("event");
    board.open(current);
  } else {
    showCreate(events);
  }
}

let createWired = false;

function setUpCreate(root: HTMLElement, past: EventAdmin[], created: (e: EventAdmin) => void): void {
  const form = q<HTMLFormElement>(root, "create-form");
  const errorEl = q(root, "create-error");
  const ends = form.elements.namedItem("endsAt") as HTMLInputElement;
  if (!ends.value) ends.value = localDateTimeInput(new Date(Date.now() + 2 * 3_600_000));
  const pastBox = q(root, "past");
  const list = q(root, "past-list");
  list.textContent = "";
  for (const e of past.filter((p) => p.state === "ended")) {
    const li = document.createElement("li");
    li.append(`${e.name} (ended ${new Date(e.endsAt).toLocaleString()}) · `);
    const a = document.createElement("a");
    a.href = exportCsvPath(e.id);
    a.download = "";
    a.textContent = `Download the CSV of ${e.name}`;
    li.append(a);
    list.append(li);
  }
  pastBox.hidden = list.childElementCount === 0;
  document.getElementById("b-create-heading")?.focus();
  if (createWired) return;
  createWired = true;
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    errorEl.textContent = "";
    const value = (name: string) => (form.elements.namedItem(name) as HTMLInputElement).value.trim();
    const lessons = [...form.querySelectorAll<HTMLInputElement>("input[name=lessons]:checked")].map((i) => i.value);
    const fail = (text: string, focus?: string) => {
      errorEl.textContent = text;
      if (focus) (form.elements.namedItem(focus) as HTMLElement | null)?.focus();
    };
    if (!value("name")) return fail("Give the workshop a name.", "name");
    if (lessons.length === 0) return fail("Pick at least one lesson.");
    if (!value("endsAt")) return fail("Say when the workshop ends.", "endsAt");
    const endsAt = new Date(value("endsAt"));
    const startsAt = value("startsAt") ? new Date(value("startsAt")) : null;
    if (Number.isNaN(endsAt.getTime())) return fail("The end is not a date.", "endsAt");
    if (endsAt.getTime() <= (startsAt?.getTime() ?? Date.now())) {
      return fail("The end must come after the start (and after now).", "endsAt");
    }
    const body: NewEvent = { name: value("name"), lessons, endsAt: endsAt.toISOString() };
    if (startsAt) body.startsAt = startsAt.toISOString();
    if (value("accessCode")) body.accessCode = value("accessCode");
    const button = form.querySelector<HTMLButtonElement>("button[type=submit]");
    if (button) button.disabled = true;
    try {
      created(await workshop.createEvent(body));
    } catch (err) {
      fail(
        err instanceof ApiFailure && err.code === "invalid_state"
          ? `Another workshop is still open: ${err.message} Reload the board to see it.`
          : `Could not create the workshop: ${message(err)}`,
      );
    } finally {
      if (button) button.disabled = false;
    }
  });
}

/** RowEls are a learner row's nodes, kept across updates. */
interface RowEls {
  tr: HTMLTableRowElement;
  cells: Record<"name" | "lesson" | "tasks" | "hints" | "last" | "health" | "alarms" | "help", HTMLElement>;
  clearHelp: HTMLButtonElement;
  view: HTMLButtonElement;
  reset: HTMLButtonElement;
  end: HTMLButtonElement;
  data: RowView;
}

class BoardView {
  private event: EventAdmin | null = null;
  private board: Board | null = null;
  private rows = new Map<string, RowEls>();
  private ws: WebSocket | null = null;
  private attempt = 0;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private viewer: TerminalViewer;
  private el: <T extends HTMLElement = HTMLElement>(name: string) => T;

  constructor(
    root: HTMLElement,
    private readonly catalogue: CatalogueLesson[],
    private readonly newEvent: () => void,
  ) {
    this.el = (name) => q(root, name);
    this.viewer = new TerminalViewer(root);
    for (const b of root.querySelectorAll<HTMLButtonElement>("[data-b-extend]")) {
      b.addEventListener("click", () => void this.extend(Number(b.dataset["bExtend"])));
    }
    this.el("end").addEventListener("click", () => void this.endAll());
    this.el("new").addEventListener("click", () => {
      this.close();
      this.newEvent();
    });
    this.el("join-url").textContent = `${location.origin}${import.meta.env.BASE_URL}workshop/`;
    setInterval(() => this.paint(), tickMs);
  }

  open(event: EventAdmin): void {
    this.event = event;
    this.board = null;
    for (const r of this.rows.values()) r.tr.remove();
    this.rows.clear();
    this.paintEvent();
    this.paint();
    document.getElementById("b-event-name")?.focus();
    this.connect();
  }

  private close(): void {
    clearTimeout(this.retry);
    const ws = this.ws;
    this.ws = null;
    ws?.close();
  }

  private connect(): void {
    if (!this.event) return;
    const live = this.el("live");
    const ws = new WebSocket(wsUrl(boardSocketPath(this.event.id)));
    this.ws = ws;
    ws.onmessage = (ev) => {
      let msg: { type?: string; board?: Board };
      try {
        msg = JSON.parse(String(ev.data)) as typeof msg;
      } catch {
        return;
      }
      if (msg.type !== "board" || !msg.board) return;
      this.attempt = 0;
      live.textContent = "Live";
      live.dataset["kind"] = "live";
      const said = helpAnnouncements(this.board, msg.board);
      if (said.length) this.el("announce").textContent = said.join(" ");
      this.board = msg.board;
      this.event = msg.board.event;
      this.paintEvent();
      this.paint();
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      const delay = reconnectDelayMs(this.attempt++, Math.random);
      live.textContent = `Reconnecting in ${Math.max(1, Math.round(delay / 1000))} s…`;
      live.dataset["kind"] = "reconnecting";
      this.retry = setTimeout(() => this.connect(), delay);
    };
  }

  private paintEvent(): void {
    const e = this.event;
    if (!e) return;
    this.el("event-name").textContent = e.name;
    this.el("access-code").textContent = e.accessCode;
    this.el("state").textContent = e.state === "open" ? "open" : e.state === "scheduled" ? "not started yet" : "ended";
    this.el("ends").textContent = new Date(e.endsAt).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
    this.el<HTMLAnchorElement>("csv").href = exportCsvPath(e.id);
    const ended = e.state === "ended";
    for (const b of this.el("event").querySelectorAll<HTMLButtonElement>("[data-b-extend], [data-b-end]")) {
      b.disabled = ended;
    }
    this.el("new").hidden = !ended;
  }

  /** paint redraws the rows from the latest board (and the relative times from the clock). */
  private paint(): void {
    const e = this.event;
    if (!e) return;
    const now = Date.now();
    this.el("left").textContent = e.state === "ended" ? "ended" : timeLeft(e.endsAt, now);
    const board = this.board;
    if (!board) return;
    this.el("summary").textContent = boardSummary(board);
    this.el("empty").hidden = board.learners.length > 0;
    const tbody = this.el("rows");
    const seen = new Set<string>();
    const order: HTMLTableRowElement[] = [];
    for (const row of sortRows(board.learners)) {
      seen.add(row.id);
      const els = this.rows.get(row.id) ?? this.createRow(row);
      this.fillRow(
        els,
        rowView(row, now, (lab) => lessonTitleForLab(lab, this.catalogue)),
      );
      order.push(els.tr);
    }
    for (const [id, els] of this.rows) {
      if (seen.has(id)) continue;
      els.tr.remove();
      this.rows.delete(id);
    }
    const current = [...tbody.children];
    if (current.length !== order.length || order.some((tr, i) => current[i] !== tr)) {
      const focused = document.activeElement instanceof HTMLElement && tbody.contains(document.activeElement);
      const active = focused ? (document.activeElement as HTMLElement) : null;
      tbody.append(...order);
      active?.focus();
    }
  }

  private createRow(row: BoardRow): RowEls {
    const tr = document.createElement("tr");
    tr.dataset["learner"] = row.id;
    const name = document.createElement("th");
    name.scope = "row";
    const td = () => document.createElement("td");
    const lesson = td();
    const tasks = td();
    const hints = td();
    const last = td();
    const cluster = td();
    const health = document.createElement("span");
    health.className = "health";
    const alarms = document.createElement("span");
    alarms.className = "alarms";
    cluster.append(health, alarms);
    const helpCell = td();
    const help = document.createElement("span");
    const clearHelp = button("Mark as helped");
    helpCell.append(help, " ", clearHelp);
    const actionsCell = td();
    const actions = document.createElement("div");
    actions.className = "actions";
    const view = button("View terminal");
    const reset = button("Reset lab");
    const end = button("End session");
    actions.append(view, reset, end);
    actionsCell.append(actions);
    tr.append(name, lesson, tasks, hints, last, cluster, helpCell, actionsCell);
    const els: RowEls = {
      tr,
      cells: { name, lesson, tasks, hints, last, health, alarms, help },
      clearHelp,
      view,
      reset,
      end,
      data: rowView(row, Date.now(), (lab) => lab),
    };
    view.addEventListener("click", () => {
      const d = els.data;
      if (d.sessionId) void this.viewer.open(d.name, d.sessionId);
    });
    reset.addEventListener("click", () => {
      const d = els.data;
      const lab = d.lab;
      if (!lab) return;
      void this.act(
        `Reset ${d.name}'s lab (${d.lesson})? Their cluster and shells start afresh; their progress is kept.`,
        "Reset the lab",
        () => workshop.resetLearner(d.id, lab),
        `${d.name}'s lab was reset.`,
      );
    });
    end.addEventListener("click", () => {
      const d = els.data;
      void this.act(
        `End ${d.name}'s session? Their lab stops now; their progress is kept and they can start it again.`,
        "End the session",
        () => workshop.endLearner(d.id),
        `${d.name}'s session was ended.`,
      );
    });
    clearHelp.addEventListener("click", () => {
      const d = els.data;
      void this.act(null, "", () => workshop.clearHelp(d.id), `${d.name}'s raised hand was cleared.`);
    });
    this.rows.set(row.id, els);
    return els;
  }

  private fillRow(els: RowEls, v: RowView): void {
    els.data = v;
    const c = els.cells;
    setText(c.name, v.name);
    setText(c.lesson, v.lesson);
    setText(c.tasks, v.tasks);
    setText(c.hints, v.hints);
    setText(c.last, v.lastActivity);
    setText(c.health, v.cluster);
    c.health.dataset["health"] = v.health;
    setText(c.alarms, v.alarms);
    c.alarms.hidden = v.alarms === "";
    setText(c.help, v.help ?? "—");
    els.clearHelp.hidden = v.help === null;
    if (v.help) els.tr.dataset["help"] = "true";
    else delete els.tr.dataset["help"];
    els.clearHelp.setAttribute("aria-label", `Mark ${v.name} as helped`);
    els.view.setAttribute("aria-label", `View ${v.name}'s terminal`);
    els.reset.setAttribute("aria-label", `Reset ${v.name}'s lab`);
    els.end.setAttribute("aria-label", `End ${v.name}'s session`);
    els.view.disabled = v.sessionId === null;
    els.reset.disabled = v.lab === null || v.sessionId === null;
    els.end.disabled = v.sessionId === null;
  }

  private async extend(minutes: number): Promise<void> {
    const e = this.event;
    if (!e) return;
    await this.act(
      null,
      "",
      async () => {
        this.event = await workshop.extendEvent(e.id, extendedEnd(e.endsAt, minutes, Date.now()));
        this.paintEvent();
        this.paint();
      },
      `Extended by ${minutes} min.`,
    );
  }

  private async endAll(): Promise<void> {
    const e = this.event;
    if (!e) return;
    await this.act(
      `End “${e.name}” for everyone? Every learner's lab stops now; their progress is kept.`,
      "End it for everyone",
      async () => {
        this.event = await workshop.endEvent(e.id);
        this.paintEvent();
        this.paint();
      },
      `“${e.name}” has ended.`,
    );
  }

  /** act asks (when `ask` is given), runs the call and says how it went. */
  private async act(ask: string | null, okLabel: string, call: () => Promise<void>, done: string): Promise<void> {
    if (ask !== null && !(await this.confirm(ask, okLabel))) return;
    const statusEl = this.el("action-status");
    statusEl.textContent = "Working…";
    try {
      await call();
      statusEl.textContent = done;
    } catch (err) {
      statusEl.textContent = `That did not work: ${message(err)}`;
    }
  }

  private confirm(text: string, okLabel: string): Promise<boolean> {
    const dialog = this.el<HTMLDialogElement>("confirm");
    this.el("confirm-text").textContent = text;
    this.el("confirm-ok").textContent = okLabel;
    dialog.returnValue = "";
    dialog.showModal();
    return new Promise((resolve) =>
      dialog.addEventListener("close", () => resolve(dialog.returnValue === "ok"), { once: true }),
    );
  }
}

/** TerminalViewer is the dialog with a read-only xterm on one of a learner's shells. */
class TerminalViewer {
  private term: Terminal | null = null;
  private fit = new FitAddon();
  private link: TerminalLink | null = null;
  private sessionId = "";
  private readonly dialog: HTMLDialogElement;
  private readonly select: HTMLSelectElement;
  private readonly state: HTMLElement;

  constructor(private readonly root: HTMLElement) {
    this.dialog = q<HTMLDialogElement>(root, "terminal");
    this.select = q<HTMLSelectElement>(root, "terminal-select");
    this.state = q(root, "terminal-state");
    q(root, "terminal-close").addEventListener("click", () => this.dialog.close());
    this.dialog.addEventListener("close", () => {
      this.link?.close();
      this.link = null;
    });
    this.select.addEventListener("change", () => this.attach(this.select.value));
  }

  async open(name: string, sessionId: string): Promise<void> {
    q(this.root, "terminal-title").textContent = `${name}'s terminal (read-only)`;
    this.sessionId = sessionId;
    this.select.textContent = "";
    this.state.textContent = "Connecting…";
    this.dialog.showModal();
    let terminals = ["main"];
    try {
      const s = await workshop.session(sessionId);
      if (s.terminals.length) terminals = s.terminals.map((t) => t.id);
    } catch (err) {
      this.state.textContent = `Cannot read the session: ${message(err)}`;
    }
    for (const id of terminals) this.select.append(new Option(id, id));
    const term = this.ensureTerm();
    this.attach(terminals.includes("main") ? "main" : (terminals[0] as string));
    this.select.value = terminals.includes("main") ? "main" : (terminals[0] as string);
    term.focus();
  }

  private ensureTerm(): Terminal {
    if (this.term) return this.term;
    const term = new Terminal({
      screenReaderMode: true,
      disableStdin: true,
      fontFamily: terminalFont,
      fontSize: 13,
      lineHeight: 1.15,
      scrollback: 5000,
      theme: terminalTheme,
    });
    term.loadAddon(this.fit);
    const screen = q(this.root, "terminal-screen");
    term.open(screen);
    term.textarea?.setAttribute("aria-label", "Learner's terminal (read-only)");
    new ResizeObserver(() => {
      try {
        this.fit.fit();
      } catch {
        // Not laid out yet.
      }
    }).observe(screen);
    this.term = term;
    return term;
  }

  private attach(terminal: string): void {
    const term = this.ensureTerm();
    this.link?.close();
    term.reset();
    const sid = this.sessionId;
    const link = new TerminalLink({
      url: (cols, rows) => wsUrl(terminalViewPath(sid, terminal, cols, rows)),
      ...browserLink,
      sink: { write: (bytes) => term.write(bytes), reset: () => term.reset() },
      onState: (s) => {
        this.state.textContent =
          s.kind === "live"
            ? "Watching"
            : s.kind === "connecting"
              ? "Connecting…"
              : s.kind === "reconnecting"
                ? `Connection lost; retrying in ${Math.max(1, Math.round(s.inMs / 1000))} s…`
                : s.kind === "exited"
                  ? "The shell ended"
                  : "Disconnected";
      },
    });
    this.link = link;
    try {
      this.fit.fit(); // the dialog is open: size the view before the server's replay arrives
    } catch {
      // Not laid out yet: the ResizeObserver fits it.
    }
    link.connect(term.cols, term.rows);
  }
}

function button(text: string): HTMLButtonElement {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = text;
  return b;
}

function setText(el: HTMLElement, text: string): void {
  if (el.textContent !== text) el.textContent = text;
}
