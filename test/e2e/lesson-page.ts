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
