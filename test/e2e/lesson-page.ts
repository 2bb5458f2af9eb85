// Helpers that read and drive a lesson page the way a person does: through roles and accessible names.
// Terminal output is read from xterm's screen-reader tree (a list of rows), which mirrors the screen.
import type { Locator, Page } from "playwright-core";

/** dock is the lab panel beside the lesson (cluster view and main terminal). */
export function dock(page: Page): Locator {
  return page.getByRole("complementary", { name: "Lab" });
}

/** terminalScreen is the terminal group named by its title ("Terminal", "Second terminal: a writer"). */
export function terminalScreen(page: Page, title = "Terminal"): Locator {
  return page.getByRole("group", { name: title, exact: true });
}

/** terminalText returns the rows the terminal shows right now. */
export async function terminalText(page: Page, title = "Terminal"): Promise<string> {
  const rows = terminalScreen(page, title).getByRole("listitem");
  return (await rows.allTextContents()).join("\n");
}

/** waitForTerminal polls the terminal until its text matches, and returns that text. */
export async function waitForTerminal(
  page: Page,
  pattern: RegExp,
  timeoutMs = 20_000,
  title = "Terminal",
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let text = "";
  while (Date.now() < deadline) {
    text = await terminalText(page, title);
    if (pattern.test(text)) return text;
    await page.waitForTimeout(100);
  }
  throw new Error(`terminal "${title}" never showed ${pattern} within ${timeoutMs} ms; it shows:\n${text}`);
}

/** typeCommand clicks into the terminal, types a command and presses Enter. */
export async function typeCommand(page: Page, command: string, title = "Terminal"): Promise<void> {
  await terminalScreen(page, title).click();
  await page.keyboard.type(command);
  await page.keyboard.press("Enter");
}

/** members is the list of member nodes in the dock's cluster view. */
export function members(page: Page): Locator {
  return dock(page).getByRole("list", { name: "Members" }).getByRole("listitem");
}

/** leaderName returns the member drawn with the crown, or null when none is. */
export async function leaderName(page: Page): Promise<string | null> {
  const crowned = members(page).filter({ has: page.getByRole("img", { name: "Leader" }) });
  if ((await crowned.count()) !== 1) return null;
  return crowned.getAttribute("data-member");
}

/** waitForLeader polls until a leader other than `not` is drawn, and returns it with the wait in ms. */
export async function waitForLeader(
  page: Page,
  not: string | null,
  timeoutMs: number,
): Promise<{ name: string; ms: number }> {
  const start = Date.now();
  while (Date.now() - start < timeoutMs) {
    const name = await leaderName(page);
    if (name !== null && name !== not) return { name, ms: Date.now() - start };
    await page.waitForTimeout(50);
  }
  throw new Error(`no leader other than ${not} was drawn within ${timeoutMs} ms`);
}

/** memberAction opens a member's Actions menu and picks an item (Kill, Start, ...). */
export async function memberAction(page: Page, member: string, item: string): Promise<void> {
  await dock(page)
    .getByRole("button", { name: `Actions for ${member}` })
    .click();
  await page
    .getByRole("menu", { name: `Actions for ${member}` })
    .getByRole("menuitem", { name: item, exact: true })
    .click();
}

/** clusterSummary is the one-line cluster state in the dock. */
export function clusterSummary(page: Page): Locator {
  return dock(page).locator("[data-summary]");
}

/** task is a task of the Tasks list, found by its heading. */
export function task(page: Page, title: string): Locator {
  return page
    .getByRole("region", { name: "Tasks" })
    .getByRole("listitem")
    .filter({ has: page.getByRole("heading", { name: title, exact: true }) });
}

/** ClusterPicture is the same cluster read from the drawing and from the table, in one instant. */
export interface ClusterPicture {
  drawn: Array<Record<string, string>>;
  table: Array<Record<string, string>>;
}

// Runs in the page (plain JavaScript: the repo's type check has no DOM library).
const pictureScript = `(() => {
  const view = document.querySelector('aside[aria-label="Lab"] cluster-view');
  if (!view) throw new Error("no cluster view in the dock");
  const drawn = [...view.querySelectorAll("li.node")].map((li) => {
    const rec = { Member: li.dataset.member || "" };
    const badges = [...li.querySelectorAll(".badges > .badge")];
    rec.State = badges[0] ? badges[0].textContent : "";
    rec.Role = badges[1] && !badges[1].hidden ? badges[1].textContent : "\u2014";
    for (const dt of li.querySelectorAll("dt")) rec[dt.textContent] = dt.nextElementSibling ? dt.nextElementSibling.textContent : "";
    return rec;
  });
  const heads = [...view.querySelectorAll("table thead th")].map((th) => th.textContent);
  const table = [...view.querySelectorAll("table tbody tr")].map((tr) => {
    const rec = {};
    [...tr.children].forEach((cell, i) => (rec[heads[i] || String(i)] = cell.textContent));
    return rec;
  });
  return { drawn, table };
})()`;

/** readClusterPicture reads nodes and table rows in one synchronous pass (the stream updates several times a second). */
export function readClusterPicture(page: Page): Promise<ClusterPicture> {
  return page.evaluate(pictureScript) as Promise<ClusterPicture>;
}

/** promptLine matches a row that is the lab shell's prompt with nothing typed after it. */
const promptLine = /^\[[0-9a-z-]+\] [^\n]*[$#]\s*$/;

/**
 * typeAndWait types one command (a line) into the terminal like a person, presses Enter, and waits until it
 * finished: the screen changed since before the typing (the echo, the output) and its last non-empty row is
 * an empty prompt again.
 */
export async function typeAndWait(page: Page, command: string, timeoutMs = 120_000, title = "Terminal"): Promise<void> {
  const before = await terminalText(page, title);
  await typeCommand(page, command, title);
  const deadline = Date.now() + timeoutMs;
  let text = "";
  while (Date.now() < deadline) {
    text = await terminalText(page, title);
    const last =
      text
        .split("\n")
        .filter((l) => l.trim() !== "")
        .pop() ?? "";
    if (text !== before && promptLine.test(last)) return;
    await page.waitForTimeout(150);
  }
  throw new Error(`"${command}" did not finish within ${timeoutMs} ms; the terminal shows:\n${text}`);
}

/** shellSize asks the shell for its size (`stty size`) and returns what it reports. */
export async function shellSize(page: Page): Promise<{ rows: number; cols: number }> {
  await typeAndWait(page, "clear; stty size", 20_000);
  const m = /^(\d+) (\d+)\s*$/m.exec(await terminalText(page));
  if (!m) throw new Error(`stty size printed nothing readable:\n${await terminalText(page)}`);
  return { rows: Number(m[1]), cols: Number(m[2]) };
}

// Runs in the page: the boxes the layout promises, and how many lines each member's DB size text takes.
const layoutScript = `(() => {
  const box = (el) => { const r = el.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, left: r.left, right: r.right }; };
  const dock = document.querySelector('aside[aria-label="Lab"]');
  const lines = (el) => { const r = document.createRange(); r.selectNodeContents(el); return new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size; };
  return {
    viewport: { width: innerWidth, height: innerHeight },
    terminal: box(dock.querySelector("lab-terminal")),
    text: box(document.getElementById("lesson-text")),
    dock: box(dock),
    memberTops: [...dock.querySelectorAll("li.node")].map((li) => Math.round(li.getBoundingClientRect().top)),
    dbSizeLines: [...dock.querySelectorAll("li.node .node-db")].map(lines),
  };
})()`;

/** LayoutPicture is where the lesson page put its parts. */
export interface LayoutPicture {
  viewport: { width: number; height: number };
  terminal: { top: number; bottom: number; left: number; right: number };
  text: { top: number; bottom: number; left: number; right: number };
  dock: { top: number; bottom: number; left: number; right: number };
  memberTops: number[];
  dbSizeLines: number[];
}

/** readLayout measures the lesson page's layout in one pass. */
export function readLayout(page: Page): Promise<LayoutPicture> {
  return page.evaluate(layoutScript) as Promise<LayoutPicture>;
}
