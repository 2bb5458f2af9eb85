// <cluster-view>: draws the lab's members from the status stream (several samples a second) as one compact
// row, with a Details toggle (remembered) for each member's numbers and the table, and offers a per-member
// actions menu (WAI-ARIA menu button). Every string comes from lib/cluster-model.ts; this file
// only creates elements once per member and updates their text in place, so focus and open menus survive
// the updates and screen readers are not flooded.
import type { ClusterStatus, MemberStatus } from "../../../engine/lab-engine/index.ts";
import type { MenuItem } from "../lib/cluster-model.ts";
import { announcements, clusterSummary, controlPlaneLine, memberMenu, memberView } from "../lib/cluster-model.ts";
import { menuButtonKey, menuKey } from "../lib/menu-keys.ts";
import { api } from "./auth.mts";
import type { LabSession } from "./lab-session.mts";
import { labSession, pageLab } from "./lab-session.mts";

const crownSvg =
  '<svg class="crown" viewBox="0 0 24 24" role="img" aria-label="Leader"><title>Leader</title>' +
  '<path fill="currentColor" d="M3 7l4.5 4L12 4l4.5 7L21 7l-2 12H5L3 7z"/></svg>';

/** setText changes an element's text only when it differs (no needless DOM or screen-reader churn). */
function setText(el: Element, text: string): void {
  if (el.textContent !== text) el.textContent = text;
}

function h<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (cls) el.className = cls;
  if (text !== undefined) el.textContent = text;
  return el;
}

interface NodeParts {
  li: HTMLLIElement;
  crown: HTMLElement;
  button: HTMLButtonElement;
  menu: HTMLUListElement;
  stateBadge: HTMLElement;
  roleBadge: HTMLElement;
  extraBadges: HTMLElement;
  db: HTMLElement;
  values: Record<"term" | "raftIndex" | "appliedIndex" | "db" | "leaderChanges", HTMLElement>;
  quota: HTMLElement;
  quotaBar: HTMLElement;
  quotaText: HTMLElement;
}

let instances = 0;

/** detailsKey remembers whether the learner keeps the members' details open (a layout preference). */
const detailsKey = "etcd-lab:layout:cluster-details";

class ClusterView extends HTMLElement {
  private started = false;
  /** idPrefix keeps element ids unique when a page has several cluster views. */
  private readonly idPrefix = `cluster-${++instances}`;
  private lab!: LabSession;
  private nodes = new Map<string, NodeParts>();
  private rows = new Map<string, HTMLTableRowElement>();
  private last: ClusterStatus | undefined;
  private openMenu: { name: string; items: MenuItem[]; index: number } | null = null;

  connectedCallback(): void {
    if (this.started) return;
    this.started = true;
    void this.start();
  }

  private q<T extends HTMLElement = HTMLElement>(name: string): T {
    const el = this.querySelector<T>(`[data-${name}]`);
    if (!el) throw new Error(`cluster-view: missing [data-${name}]`);
    return el;
  }

  private async start(): Promise<void> {
    const lab = this.dataset["lab"] ?? pageLab();
    if (!lab) return;
    try {
      this.lab = await labSession(lab);
    } catch (err) {
      this.showError(`The lab did not start: ${(err as Error).message}`);
      setText(this.q("summary"), "No cluster");
      return;
    }
    this.setUpDetails();
    const heal = this.q<HTMLButtonElement>("heal");
    heal.onclick = () => void this.act(() => api.heal(this.lab.session().id), "Network healed.");
    const first = this.lab.latestStatus();
    if (first) this.render(first);
    this.lab.subscribe((msg) => {
      if (msg.type === "status") this.render(msg.status);
    });
    document.addEventListener("click", (ev) => {
      if (this.openMenu && !this.contains(ev.target as Node)) this.closeMenu(false);
    });
    void this.pollControlPlane();
  }

  /** setUpDetails wires the Details toggle: members' numbers, quota bars and the table, shown on demand. */
  private setUpDetails(): void {
    const toggle = this.q<HTMLButtonElement>("details-toggle");
    const table = this.q("table-box");
    const show = (open: boolean, save: boolean) => {
      this.dataset["details"] = open ? "open" : "closed";
      toggle.setAttribute("aria-expanded", String(open));
      table.hidden = !open;
      if (!save) return;
      try {
        localStorage.setItem(detailsKey, open ? "open" : "closed");
      } catch {
        // Storage disabled: the choice lasts for this page.
      }
    };
    let saved: string | null = null;
    try {
      saved = localStorage.getItem(detailsKey);
    } catch {
      saved = null;
    }
    show(saved === "open", false);
    toggle.addEventListener("click", () => show(toggle.getAttribute("aria-expanded") !== "true", true));
  }

  /** pollControlPlane shows the simulated Kubernetes control plane's line every 5 s, if the lab runs one. */
  private async pollControlPlane(): Promise<void> {
    const el = this.q("kube");
    for (;;) {
      try {
        const line = controlPlaneLine(await api.kubeStatus(this.lab.session().id));
        setText(el, line);
        el.title = line;
        el.hidden = false;
      } catch (err) {
        if ((err as { code?: string }).code === "unsupported") return; // this lab runs no control plane
        el.hidden = true;
      }
      await new Promise((r) => setTimeout(r, 5000));
    }
  }

  private render(s: ClusterStatus): void {
    const names = s.members.map((m) => m.name);
    const summary = clusterSummary(s);
    const summaryEl = this.q("summary");
    setText(summaryEl, summary.text);
    summaryEl.dataset["quorum"] = summary.hasQuorum ? "ok" : "lost";
    this.q<HTMLButtonElement>("heal").hidden = !(summary.anyNetworkFaults && this.lab.session().capabilities.heal);

    const list = this.q("members");
    const tbody = this.q("table-body");
    for (const m of s.members) {
      const parts = this.nodes.get(m.name) ?? this.createNode(m.name, list);
      const row = this.rows.get(m.name) ?? this.createRow(m.name, tbody);
      this.updateNode(parts, m, names);
      this.updateRow(row, m, names);
    }
    for (const [name, parts] of this.nodes) {
      if (!names.includes(name)) {
        parts.li.remove();
        this.rows.get(name)?.remove();
        this.nodes.delete(name);
        this.rows.delete(name);
      }
    }
    const said = announcements(this.last, s);
    if (said.length) setText(this.q("announce"), said.join(" "));
    this.last = s;
  }

  private createNode(name: string, list: HTMLElement): NodeParts {
    const li = h("li", "node");
    li.dataset["member"] = name;
    const head = h("div", "node-head");
    const crownWrap = h("span");
    crownWrap.innerHTML = crownSvg;
    const crown = crownWrap.firstElementChild as HTMLElement;
    const menuId = `${this.idPrefix}-menu-${name}`;
    const button = h("button", "node-menu-button");
    button.type = "button";
    button.setAttribute("aria-haspopup", "menu");
    button.setAttribute("aria-expanded", "false");
    button.setAttribute("aria-controls", menuId);
    button.setAttribute("aria-label", `Actions for ${name}`);
    button.append("Actions", h("span", "chevron", " ▾"));
    head.append(crown, h("span", "node-name", name), button);

    const line = h("div", "node-line");
    const badges = h("div", "badges");
    const stateBadge = h("span", "badge");
    const roleBadge = h("span", "badge role");
    const extraBadges = h("span", "badge-extras");
    badges.append(stateBadge, roleBadge, extraBadges);
    const db = h("span", "node-db");
    line.append(badges, db);

    const dl = h("dl");
    const value = (label: string) => {
      const dd = h("dd");
      dl.append(h("dt", undefined, label), dd);
      return dd;
    };
    const values = {
      term: value("Term"),
      raftIndex: value("Raft index"),
      appliedIndex: value("Applied index"),
      db: value("DB size"),
      leaderChanges: value("Leader changes"),
    };
    const quota = h("div", "quota");
    quota.setAttribute("role", "img");
    const quotaBar = h("span");
    quota.append(quotaBar);
    const quotaText = h("p", "quota-text");

    const menu = h("ul", "menu");
    menu.id = menuId;
    menu.setAttribute("role", "menu");
    menu.setAttribute("aria-label", `Actions for ${name}`);
    menu.hidden = true;

    const details = h("div", "node-details");
    details.append(dl, quota, quotaText);
    li.append(head, line, details, menu);
    button.addEventListener("click", () =>
      this.openMenu?.name === name ? this.closeMenu(true) : this.showMenu(name, 0),
    );
    button.addEventListener("keydown", (ev) => {
      const items = this.itemsFor(name);
      const index = menuButtonKey(ev.key, items.length);
      if (index >= 0 && (ev.key === "ArrowDown" || ev.key === "ArrowUp")) {
        ev.preventDefault();
        this.showMenu(name, index);
      }
    });
    menu.addEventListener("keydown", (ev) => this.menuKeydown(ev));
    // Keep members in name order whatever order they first appear in.
    const after = [...list.children].find((c) => ((c as HTMLElement).dataset["member"] ?? "") > name);
    list.insertBefore(li, after ?? null);
    const parts = {
      li,
      crown,
      button,
      menu,
      stateBadge,
      roleBadge,
      extraBadges,
      db,
      values,
      quota,
      quotaBar,
      quotaText,
    };
    this.nodes.set(name, parts);
    return parts;
  }

  private updateNode(p: NodeParts, m: MemberStatus, names: readonly string[]): void {
    const v = memberView(m, names);
    p.li.dataset["state"] = v.state;
    p.li.dataset["leader"] = String(v.isLeader);
    p.li.dataset["stale"] = String(v.stale);
    p.crown.style.visibility = v.isLeader ? "visible" : "hidden";
    p.crown.setAttribute("aria-hidden", String(!v.isLeader));
    p.stateBadge.className = `badge state-${v.state}`;
    setText(p.stateBadge, v.stateLabel);
    setText(p.roleBadge, v.roleLabel);
    p.roleBadge.hidden = v.roleLabel === "—";
    const extras = [...(m.alarms.length ? [`Alarm: ${v.alarms}`] : []), ...v.faults];
    const current = [...p.extraBadges.children].map((c) => c.textContent).join("|");
    if (current !== extras.join("|")) {
      p.extraBadges.replaceChildren(
        ...extras.map((t) => h("span", t.startsWith("Alarm") ? "badge alarm" : "badge fault", t)),
      );
    }
    setText(p.values.term, v.term);
    setText(p.values.raftIndex, v.raftIndex);
    setText(p.values.appliedIndex, v.appliedIndex);
    setText(p.values.db, v.dbSize);
    setText(p.db, v.dbSize === "—" ? "" : `DB ${v.dbSize}`);
    setText(p.values.leaderChanges, v.leaderChanges);
    p.quota.dataset["level"] = v.quotaPercent >= 80 ? "high" : "normal";
    p.quota.setAttribute("aria-label", `Quota used: ${v.quotaUsed}`);
    p.quotaBar.style.width = `${v.quotaPercent.toFixed(1)}%`;
    setText(p.quotaText, v.quotaUsed === "—" ? "quota unknown" : `${v.quotaUsed} quota`);
    if (this.openMenu?.name === m.name) {
      // The member changed state under an open menu: rebuild its items, keeping the focus position.
      const items = this.itemsFor(m.name);
      if (items.map((i) => i.label).join() !== this.openMenu.items.map((i) => i.label).join()) {
        this.showMenu(m.name, Math.min(this.openMenu.index, items.length - 1));
      }
    }
  }

  private createRow(name: string, tbody: HTMLElement): HTMLTableRowElement {
    const tr = h("tr");
    tr.dataset["member"] = name;
    const th = h("th", undefined, name);
    th.scope = "row";
    tr.append(th);
    for (let i = 0; i < 9; i++) tr.append(h("td"));
    const after = [...tbody.children].find((c) => ((c as HTMLElement).dataset["member"] ?? "") > name);
    tbody.insertBefore(tr, after ?? null);
    this.rows.set(name, tr);
    return tr;
  }

  private updateRow(tr: HTMLTableRowElement, m: MemberStatus, names: readonly string[]): void {
    const v = memberView(m, names);
    const faults = v.faults.length ? ` (${v.faults.join(", ")})` : "";
    const cells = [
      v.stateLabel + faults,
      v.roleLabel,
      v.term,
      v.raftIndex,
      v.appliedIndex,
      v.dbSize,
      v.quotaUsed,
      v.alarms,
      v.leaderChanges,
    ];
    cells.forEach((text, i) => {
      const td = tr.cells[i + 1];
      if (td) setText(td, text);
    });
  }

  private itemsFor(name: string): MenuItem[] {
    const m = this.last?.members.find((x) => x.name === name);
    if (!m) return [];
    return memberMenu(m, this.lab.session().capabilities, this.last?.members.map((x) => x.name) ?? []);
  }

  private showMenu(name: string, index: number): void {
    if (this.openMenu && this.openMenu.name !== name) this.closeMenu(false);
    const parts = this.nodes.get(name);
    if (!parts) return;
    const items = this.itemsFor(name);
    parts.menu.replaceChildren(
      ...items.map((item, i) => {
        const li = h("li");
        li.setAttribute("role", "none");
        const b = h("button");
        b.type = "button";
        b.setAttribute("role", "menuitem");
        b.tabIndex = -1;
        const hintId = `${parts.menu.id}-hint-${i}`;
        const hint = h("span", "hint", item.hint);
        hint.id = hintId;
        b.append(h("span", "label", item.label), hint);
        b.setAttribute("aria-label", item.label);
        b.setAttribute("aria-describedby", hintId);
        b.addEventListener("click", () => this.activate(name, item));
        li.append(b);
        return li;
      }),
    );
    parts.menu.hidden = false;
    parts.button.setAttribute("aria-expanded", "true");
    this.openMenu = { name, items, index: Math.max(0, index) };
    this.focusItem(this.openMenu.index);
  }

  private focusItem(index: number): void {
    if (!this.openMenu) return;
    this.openMenu.index = index;
    const parts = this.nodes.get(this.openMenu.name);
    parts?.menu.querySelectorAll<HTMLButtonElement>('[role="menuitem"]')[index]?.focus();
  }

  private closeMenu(returnFocus: boolean): void {
    if (!this.openMenu) return;
    const parts = this.nodes.get(this.openMenu.name);
    this.openMenu = null;
    if (!parts) return;
    parts.menu.hidden = true;
    parts.menu.replaceChildren();
    parts.button.setAttribute("aria-expanded", "false");
    if (returnFocus) parts.button.focus();
  }

  private menuKeydown(ev: KeyboardEvent): void {
    if (!this.openMenu) return;
    const { name, items, index } = this.openMenu;
    const r = menuKey(
      ev.key,
      index,
      items.map((i) => i.label),
    );
    switch (r.kind) {
      case "focus":
        ev.preventDefault();
        this.focusItem(r.index);
        break;
      case "activate": {
        ev.preventDefault();
        const item = items[r.index];
        if (item) this.activate(name, item);
        break;
      }
      case "close":
        if (r.returnFocus) ev.preventDefault();
        this.closeMenu(r.returnFocus);
        break;
      case "ignore":
        break;
    }
  }

  private activate(name: string, item: MenuItem): void {
    this.closeMenu(true);
    void this.act(
      () => api.memberControl(this.lab.session().id, name, item.action, item.body),
      `${item.label}: ${name}.`,
    );
  }

  private async act(run: () => Promise<unknown>, done: string): Promise<void> {
    this.q("error").hidden = true;
    this.setAttribute("aria-busy", "true");
    try {
      await run();
      setText(this.q("announce"), done);
    } catch (err) {
      this.showError((err as Error).message);
    } finally {
      this.removeAttribute("aria-busy");
    }
  }

  private showError(text: string): void {
    const el = this.q("error");
    el.hidden = false;
    setText(el, text);
  }
}

if (!customElements.get("cluster-view")) customElements.define("cluster-view", ClusterView);
