// Workshop mode end to end in Debian's Chromium, on 1280×800 screens: a lab server started with --workshop (with
// `--sandbox $ETCD_LAB_E2E_SANDBOX` when that is set, e.g. direct where namespaces cannot run); the instructor signs in from
// the admin URL's fragment (which leaves the address bar) and creates an event; a learner opening a lesson is
// sent to /workshop/, gets a wrong access code refused, joins, sees the resume code once, and lands back on the
// lesson with the workshop bar; a second browser taking the same name is offered the resume form and gets in
// with that code. The board (live) shows the learner's row; Ask for help highlights and announces it; the
// read-only terminal view shows the learner's shell and its keys never reach it; then Mark as helped, Extend,
// the CSV, Reset lab, End session and End it for all. Screenshots go to test-results/screenshots/.
import { readFileSync } from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LabServer } from "./harness.ts";
import {
  chromiumArgs,
  chromiumPath,
  ensureSiteBuilt,
  laptopViewport,
  missingPrerequisites,
  saveScreenshot,
  shouldSkip,
  startLabServer,
} from "./harness.ts";
import { terminalText, typeAndWait, waitForTerminal } from "./lesson-page.ts";

const skip = shouldSkip();
const adminToken = `admin-${process.pid}-${Date.now().toString(36)}`;
const accessCode = "ORCA4242";
const lessonPath = "/lessons/what-lives-in-etcd/";
const viewerTitle = "Ada's terminal (read-only)";

/** stepTimeoutMs bounds each step: a cluster start or a reset under a loaded machine can take a while. */
const stepTimeoutMs = 180_000;

describe.skipIf(skip)("workshop mode in a browser", () => {
  let server: LabServer | undefined;
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  let board: Page;
  let ada: Page;
  let resumeCode = "";

  const origin = () => {
    if (!server) throw new Error("the lab server did not start");
    return server.origin;
  };
  const newPage = async (): Promise<Page> => {
    if (!browser) throw new Error("the browser did not start");
    const context = await browser.newContext({ viewport: laptopViewport, reducedMotion: "reduce" });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: origin() });
    contexts.push(context);
    return context.newPage();
  };
  const row = (name: string) => board.getByRole("row").filter({ has: board.getByRole("rowheader", { name }) });

  beforeAll(async () => {
    const missing = missingPrerequisites();
    if (missing.length) throw new Error(`e2e prerequisites missing under ETCD_LAB_CI=1: ${missing.join(", ")}`);
    ensureSiteBuilt();
    const sandbox = process.env["ETCD_LAB_E2E_SANDBOX"];
    const args = ["--workshop", "--admin-token", adminToken, ...(sandbox ? ["--sandbox", sandbox] : [])];
    server = await startLabServer(process.env["ETCD_LAB_E2E_BACKEND"], args);
    console.log(`e2e: workshop lab server on ${server.origin}, sandbox ${sandbox ?? "(the server's default)"}`);
    browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: chromiumArgs });
    board = await newPage();
    ada = await newPage();
  }, 300_000);

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await server?.stop();
  }, 60_000);

  it("answers GET /api/workshop in workshop mode", async () => {
    const res = await fetch(`${origin()}/api/workshop`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ workshop: true, event: null });
  });

  it(
    "signs the instructor in from the fragment, removes it, and creates an event",
    async () => {
      await board.goto(`${origin()}/workshop/board/#admin=${encodeURIComponent(adminToken)}`);
      await expect.poll(() => board.getByRole("heading", { name: "New workshop" }).isVisible()).toBe(true);
      expect(new URL(board.url()).hash).toBe("");
      await board.getByLabel("Name", { exact: true }).fill("E2E workshop");
      const lessons = board.getByRole("group", { name: "Lessons" }).getByRole("checkbox");
      const count = await lessons.count();
      for (let i = 0; i < count; i++) {
        const box = lessons.nth(i);
        const label = (await box.evaluate((el) => el.parentElement?.textContent ?? "")).trim();
        if (/What lives in etcd|Raft and quorum/.test(label)) await box.check();
        else await box.uncheck();
      }
      await board.getByLabel("Access code").fill(accessCode);
      await board.getByRole("button", { name: "Create the workshop" }).click();
      await expect.poll(() => board.getByRole("heading", { name: "E2E workshop" }).isVisible()).toBe(true);
      await expect.poll(() => board.getByText(accessCode, { exact: true }).isVisible()).toBe(true);
      await expect.poll(() => board.locator("[data-b-live]").textContent(), { timeout: 15_000 }).toBe("Live");
      await expect.poll(() => board.getByText("No one has joined yet.").isVisible()).toBe(true);
    },
    stepTimeoutMs,
  );

  it(
    "refuses a wrong admin token with a clear message",
    async () => {
      const other = await newPage();
      await other.goto(`${origin()}/workshop/board/#admin=not-the-token`);
      await expect.poll(() => other.getByText("That admin link is not right").isVisible()).toBe(true);
      expect(new URL(other.url()).hash).toBe("");
      await other.context().close();
    },
    stepTimeoutMs,
  );

  it(
    "sends a learner who has not joined from the lesson to /workshop/ and back after joining",
    async () => {
      await ada.goto(`${origin()}${lessonPath}`);
      await ada.waitForURL((u) => u.pathname === "/workshop/", { timeout: 15_000 });
      expect(new URL(ada.url()).searchParams.get("next")).toBe(lessonPath);
      await ada.getByLabel("Access code").first().fill("WRONG-0000");
      await ada.getByLabel("Display name").first().fill("Ada");
      await ada.getByRole("button", { name: "Join the workshop" }).click();
      await expect.poll(() => ada.locator("[data-w-join-error]").textContent()).toMatch(/access code is not right/);
      await ada.getByLabel("Access code").first().fill(accessCode);
      await ada.getByRole("button", { name: "Join the workshop" }).click();
      const heading = ada.getByRole("heading", { name: "Write this down: your resume code" });
      await expect.poll(() => heading.isVisible()).toBe(true);
      resumeCode = ((await ada.locator("[data-w-resume-code-text]").textContent()) ?? "").trim();
      expect(resumeCode).not.toBe("");
      await ada.getByRole("button", { name: "Copy the resume code" }).click();
      await expect.poll(() => ada.evaluate("navigator.clipboard.readText()")).toBe(resumeCode);
      const lessonsList = ada.getByRole("list", { name: "Lessons of this workshop" });
      expect(await lessonsList.getByRole("link").allTextContents()).toEqual([
        expect.stringMatching(/What lives in etcd/),
        expect.stringMatching(/Raft and quorum/),
      ]);
      await saveScreenshot(ada, "workshop-joined");
      await ada.getByRole("link", { name: "Continue to your lesson" }).click();
      await ada.waitForURL((u) => u.pathname === lessonPath);
      const bar = ada.getByRole("region", { name: "Workshop" });
      await expect.poll(() => bar.textContent(), { timeout: 15_000 }).toMatch(/E2E workshop.*left.*Ada/s);
      await waitForTerminal(ada, /\[01-what-lives-in-etcd\][^\n]*[$#]/, 120_000);
      // The resume code is shown once: the join page of a joined browser does not show it again.
      const again = await ada.context().newPage();
      await again.goto(`${origin()}/workshop/`);
      await expect.poll(() => again.getByRole("heading", { name: "You are in" }).isVisible()).toBe(true);
      expect(await again.getByText(resumeCode, { exact: true }).count()).toBe(0);
      await again.close();
    },
    stepTimeoutMs,
  );

  it(
    "offers the resume form when the name is taken, and resumes with the code",
    async () => {
      const other = await newPage();
      await other.goto(`${origin()}/workshop/`);
      await other.getByLabel("Access code").first().fill(accessCode);
      await other.getByLabel("Display name").first().fill("Ada");
      await other.getByRole("button", { name: "Join the workshop" }).click();
      await expect
        .poll(() => other.locator("[data-w-join-error]").textContent())
        .toMatch(/already joined with that name/);
      const resumeField = other.getByLabel("Resume code");
      await expect.poll(() => resumeField.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
      await resumeField.fill("not-it");
      await other.getByRole("button", { name: "Resume", exact: true }).click();
      await expect
        .poll(() => other.locator("[data-w-resume-error]").textContent())
        .toMatch(/resume code does not match/);
      await resumeField.fill(resumeCode);
      await other.getByRole("button", { name: "Resume", exact: true }).click();
      await expect.poll(() => other.getByRole("heading", { name: "You are in" }).isVisible()).toBe(true);
      expect(await other.locator("[data-w-joined-name]").textContent()).toBe("Ada");
      await other.context().close();
    },
    stepTimeoutMs,
  );

  it(
    "shows the learner live on the board, and a raised hand highlighted and announced",
    async () => {
      const adaRow = row("Ada");
      await expect.poll(() => adaRow.textContent(), { timeout: 30_000 }).toMatch(/What lives in etcd/);
      await expect.poll(() => adaRow.textContent(), { timeout: 30_000 }).toMatch(/\d+\/\d+ up · leader/);
      expect(await adaRow.getAttribute("data-help")).toBeNull();
      await ada.getByRole("button", { name: "Ask for help" }).click();
      await expect
        .poll(() => ada.getByRole("button", { name: "Cancel help request" }).getAttribute("aria-pressed"))
        .toBe("true");
      await expect.poll(() => adaRow.getAttribute("data-help"), { timeout: 15_000 }).toBe("true");
      await expect.poll(() => board.locator("[data-b-announce]").textContent()).toMatch(/Ada asks for help/);
      await saveScreenshot(board, "workshop-board");
      await adaRow.getByRole("button", { name: "Mark Ada as helped" }).click();
      await expect.poll(() => adaRow.getAttribute("data-help"), { timeout: 15_000 }).toBeNull();
    },
    stepTimeoutMs,
  );

  it(
    "shows the learner's shell read-only",
    async () => {
      await row("Ada").getByRole("button", { name: "View Ada's terminal" }).click();
      await expect.poll(() => board.getByRole("dialog", { name: viewerTitle }).isVisible()).toBe(true);
      await typeAndWait(ada, "echo WATCHED-$((6*7))");
      await waitForTerminal(board, /WATCHED-42/, 20_000, viewerTitle);
      // Keys typed in the viewer never reach the learner's shell.
      await board.getByRole("group", { name: viewerTitle }).click();
      await board.keyboard.type("echo VIEWER-TYPED");
      await board.keyboard.press("Enter");
      await typeAndWait(ada, "echo AFTER-$((2+2))");
      await waitForTerminal(board, /AFTER-4/, 20_000, viewerTitle);
      expect(await terminalText(ada)).not.toMatch(/VIEWER-TYPED/);
      await board.getByRole("button", { name: "Close" }).click();
      await expect.poll(() => board.getByRole("dialog", { name: viewerTitle }).isVisible()).toBe(false);
    },
    stepTimeoutMs,
  );

  it(
    "extends the event and downloads the CSV",
    async () => {
      const ends = board.locator("[data-b-ends]");
      const before = await ends.textContent();
      await board.getByRole("button", { name: "Extend by 15 min" }).click();
      await expect.poll(() => board.getByText("Extended by 15 min.").isVisible()).toBe(true);
      expect(await ends.textContent()).not.toBe(before);
      const download = board.waitForEvent("download");
      await board.getByRole("link", { name: "Download CSV" }).click();
      const file = await (await download).path();
      const csv = readFileSync(file, "utf8");
      expect(csv.split(/\r?\n/)[0]).toBe("learner_id,name,lab,task,passed,passed_at,hints_used,attempts,solved_by");
      expect(csv).toMatch(/,Ada,01-what-lives-in-etcd,/);
    },
    stepTimeoutMs,
  );

  it(
    "resets the learner's lab and ends their session after a confirmation",
    async () => {
      const adaRow = row("Ada");
      await adaRow.getByRole("button", { name: "Reset Ada's lab" }).click();
      const dialog = board.getByRole("dialog");
      await expect.poll(() => dialog.textContent()).toMatch(/Reset Ada's lab/);
      await dialog.getByRole("button", { name: "Cancel" }).click();
      await adaRow.getByRole("button", { name: "Reset Ada's lab" }).click();
      await dialog.getByRole("button", { name: "Reset the lab" }).click();
      await expect.poll(() => board.getByText("Ada's lab was reset.").isVisible(), { timeout: 60_000 }).toBe(true);
      await adaRow.getByRole("button", { name: "End Ada's session" }).click();
      await dialog.getByRole("button", { name: "End the session" }).click();
      await expect.poll(() => board.getByText("Ada's session was ended.").isVisible(), { timeout: 30_000 }).toBe(true);
      await expect.poll(() => adaRow.textContent(), { timeout: 15_000 }).toMatch(/no lab running/);
    },
    stepTimeoutMs,
  );

  it(
    "ends the event for all after a confirmation",
    async () => {
      await board.getByRole("button", { name: "End it for all…" }).click();
      await board.getByRole("dialog").getByRole("button", { name: "End it for everyone" }).click();
      await expect.poll(() => board.locator("[data-b-state]").textContent(), { timeout: 30_000 }).toBe("ended");
      expect(await board.getByRole("button", { name: "Extend by 15 min" }).isDisabled()).toBe(true);
      await expect.poll(() => board.getByRole("button", { name: "New workshop" }).isVisible()).toBe(true);
      const late = await newPage();
      await late.goto(`${origin()}/workshop/`);
      await expect
        .poll(() => late.getByText("No workshop is open right now.", { exact: false }).isVisible())
        .toBe(true);
    },
    stepTimeoutMs,
  );
});
