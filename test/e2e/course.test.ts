// The course end to end in Debian's Chromium against a fresh lab server, on a 1280×800 laptop screen: lesson 1
// typed, checked and reloaded; the layout at three screen sizes (a whole terminal of 100×20 or more beside the
// text, one row of members); a keyboard-only task, hints as Markdown, one Solve at a time; Reset lab and
// `lab reset --clear-progress` against the page and the course map; lesson 2's leader kill, quorum loss and
// recovery, and Clear progress; then one task of every lab the course lists, typed and checked. Screenshots go
// to test-results/screenshots/ (docs/screenshots/ with UPDATE_SCREENSHOTS=1). One learner (one browser
// context) walks through in order.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browsing, CourseLab, LabServer } from "./harness.ts";
import {
  courseLabs,
  ensureSiteBuilt,
  laptopViewport,
  jsWeight,
  pageScripts,
  missingPrerequisites,
  openBrowser,
  saveScreenshot,
  shouldSkip,
  startLabServerForE2e,
} from "./harness.ts";
import {
  clusterSummary,
  dock,
  leaderName,
  memberAction,
  members,
  readClusterPicture,
  readLayout,
  shellSize,
  task,
  terminalScreen,
  terminalText,
  typeAndWait,
  typeCommand,
  waitForLeader,
  waitForTerminal,
} from "./lesson-page.ts";

const skip = shouldSkip();
/** labs is every lab the course lists, with its first task (one per lab is walked at the end). */
const labs: CourseLab[] = skip ? [] : await courseLabs();

describe.skipIf(skip)("the course in a browser", () => {
  let server: (LabServer & { backend: string }) | undefined;
  let b: Browsing | undefined;
  const page = () => {
    if (!b) throw new Error("the browser did not start");
    return b.page;
  };

  beforeAll(async () => {
    const missing = missingPrerequisites();
    if (missing.length) throw new Error(`e2e prerequisites missing under ETCD_LAB_CI=1: ${missing.join(", ")}`);
    ensureSiteBuilt();
    server = await startLabServerForE2e();
    console.log(`e2e: lab server on ${server.origin}, backend ${server.backend}`);
    b = await openBrowser(server);
  }, 300_000);

  afterAll(async () => {
    await b?.browser.close();
    await server?.stop();
  }, 60_000);

  it("lesson 1: prompt, typed commands, Check passes; a reload keeps the progress and the same shell", async () => {
    const p = page();
    await expect.poll(() => p.url()).not.toContain("token=");
    await p.getByRole("link", { name: "What lives in etcd" }).click();
    await p.waitForURL(/\/lessons\/what-lives-in-etcd\/$/);
    await waitForTerminal(p, /\[01-what-lives-in-etcd\][^\n]*[$#]/, 60_000);
    const scripts = pageScripts("lessons/what-lives-in-etcd");
    const loaded = await p.evaluate("performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname)");
    expect(loaded as string[]).toEqual(expect.arrayContaining(scripts));
    const weight = jsWeight(scripts);
    console.log(
      `e2e: lesson page JS: ${weight.files} files, ${weight.rawBytes} bytes, ${weight.gzipBytes} bytes gzip -9`,
    );
    expect(weight.gzipBytes).toBeLessThan(150_000);
    // The lab server sends them precompressed: what crossed the wire is a fraction of what the page runs.
    const [wire, decoded] = (await p.evaluate(
      `performance.getEntriesByType("resource").filter((e) => /\\/_astro\\/.*\\.js$/.test(new URL(e.name).pathname))
        .reduce(([w, d], e) => [w + e.encodedBodySize, d + e.decodedBodySize], [0, 0])`,
    )) as [number, number];
    console.log(`e2e: lesson page JS over the wire: ${wire} bytes for ${decoded} bytes of script`);
    expect(wire).toBeLessThan(decoded / 3);

    await typeCommand(p, "E2E_MARK=same-shell-4711");
    await typeCommand(
      p,
      `etcdctl put /lab/answers/pod-count "$(etcdctl get /registry/pods/ --prefix --keys-only | grep -c '^/')"`,
    );
    await waitForTerminal(p, /^OK$/m);

    const countPods = task(p, "Count the pods");
    await countPods.getByRole("button", { name: "Check: Count the pods" }).click();
    await expect.poll(() => countPods.getByText(/^Passed: Right: \d+ pods/).count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(() => countPods.getByText("Done", { exact: true }).count()).toBe(1);
    // The simulated control plane is named in the dock, and the shell's kubectl reaches its apiserver.
    await expect
      .poll(() => dock(p).locator("[data-kube]").textContent(), { timeout: 15_000 })
      .toMatch(/^Kubernetes \(simulated\): kube-apiserver serving · /);
    await typeCommand(p, "kubectl get nodes --no-headers -o custom-columns=NAME:.metadata.name | tail -1");
    await waitForTerminal(p, /^k8s-node-2$/m);
    console.log(`e2e: screenshot ${await saveScreenshot(p, "lesson-1-what-lives-in-etcd")}`);

    await p.reload();
    await expect
      .poll(() => task(p, "Count the pods").getByText("Done", { exact: true }).count(), { timeout: 20_000 })
      .toBe(1);
    await waitForTerminal(p, /E2E_MARK=same-shell-4711/, 20_000); // the scrollback came back
    await typeCommand(p, 'echo "mark is $E2E_MARK"');
    await waitForTerminal(p, /^mark is same-shell-4711$/m);

    // Copy: a triple click selects the output line, Ctrl+Shift+C copies it. Paste: the Paste button.
    const row = terminalScreen(p)
      .getByRole("listitem")
      .filter({ hasText: /^mark is same-shell-4711/ })
      .last();
    const box = await row.boundingBox();
    if (!box) throw new Error("the output line has no box on screen");
    await p.mouse.click(box.x + 10, box.y + box.height / 2, { clickCount: 3 });
    await p.keyboard.press("Control+Shift+C");
    expect(await p.evaluate("navigator.clipboard.readText()")).toMatch(/^mark is same-shell-4711\s*$/);
    await p.evaluate("navigator.clipboard.writeText('echo pasted-$((6*7))')");
    await dock(p).getByRole("button", { name: "Paste" }).click();
    await p.keyboard.press("Enter");
    await waitForTerminal(p, /^pasted-42$/m);

    await p.getByRole("link", { name: "etcd-lab" }).click();
    const card = p.getByRole("listitem").filter({ has: p.getByRole("link", { name: "What lives in etcd" }) });
    await expect.poll(() => card.getByText("1 of 3 tasks done").count(), { timeout: 10_000 }).toBe(1);
  }, 180_000);

  it("layout: at 1280×800, 1440×900 and 1920×1080 the whole terminal (≥ 100×20) sits beside the text; the split is remembered", async () => {
    const p = page();
    for (const size of [laptopViewport, { width: 1440, height: 900 }, { width: 1920, height: 1080 }]) {
      await p.setViewportSize(size);
      await p.goto(new URL("/lessons/what-lives-in-etcd/", p.url()).toString());
      await waitForTerminal(p, /\[01-what-lives-in-etcd\][^\n]*[$#]/, 30_000);
      await expect.poll(() => members(p).count(), { timeout: 15_000 }).toBe(3);
      const shell = await shellSize(p);
      console.log(`e2e: ${size.width}×${size.height}: the shell reports ${shell.cols} columns × ${shell.rows} rows`);
      expect(shell.cols).toBeGreaterThanOrEqual(100);
      expect(shell.rows).toBeGreaterThanOrEqual(20);
      const l = await readLayout(p);
      expect(l.terminal.top).toBeGreaterThanOrEqual(0);
      expect(l.terminal.bottom).toBeLessThanOrEqual(l.viewport.height);
      expect(l.terminal.right).toBeLessThanOrEqual(l.viewport.width);
      expect(l.text.right).toBeLessThanOrEqual(l.dock.left); // the lesson text beside the lab
      expect(new Set(l.memberTops).size).toBe(1); // one row of members
      expect(l.dbSizeLines).toEqual([1, 1, 1]); // "DB 160 kB" never breaks
      // member list -w table, which the lesson asks for, fits: every member's row is one whole line.
      await typeAndWait(p, "clear; etcdctl member list -w table");
      const rows = (await terminalText(p)).split("\n").filter((r) => /^\|\s+[0-9a-f]+ \| started \|/.test(r));
      expect(rows.map((r) => /\|\s*false \|\s*$/.test(r))).toEqual([true, true, true]);
      console.log(`e2e: screenshot ${await saveScreenshot(p, `layout-${size.width}x${size.height}`)}`);
    }

    // The splitter: the arrow keys give the terminal more room; the choice survives a reload; Enter restores it.
    await p.setViewportSize(laptopViewport);
    const before = (await readLayout(p)).text.right;
    const splitter = p.getByRole("separator", { name: /^Width of the lesson text/ });
    await splitter.focus();
    for (let i = 0; i < 3; i++) await p.keyboard.press("ArrowLeft");
    await expect.poll(async () => Math.round(before - (await readLayout(p)).text.right)).toBe(96);
    await p.reload();
    await waitForTerminal(p, /\[01-what-lives-in-etcd\]/, 30_000);
    expect(Math.round(before - (await readLayout(p)).text.right)).toBe(96);
    expect((await shellSize(p)).cols).toBeGreaterThanOrEqual(110);
    await splitter.focus();
    await p.keyboard.press("Enter");
    await expect.poll(async () => Math.round((await readLayout(p)).text.right)).toBe(Math.round(before));
  }, 180_000);

  it("keyboard only: reach the terminal, type, leave it with Esc Tab, Check a task; the table matches the drawing", async () => {
    const p = page();
    await p.goto(new URL("/lessons/what-lives-in-etcd/", p.url()).toString());
    await waitForTerminal(p, /\[01-what-lives-in-etcd\]/, 30_000);
    const focused = () =>
      p.evaluate(
        "document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent ?? ''",
      ) as Promise<string>;

    async function tabTo(pattern: RegExp, maxPresses = 250): Promise<void> {
      for (let i = 0; i < maxPresses; i++) {
        await p.keyboard.press("Tab");
        if (pattern.test(await focused())) return;
      }
      throw new Error(`Tab never reached ${pattern}; focus is on "${await focused()}"`);
    }

    await tabTo(/^Terminal: shell input$/);
    await p.keyboard.type(
      `etcdctl put /lab/answers/coredns-resource-version "$(etcdctl get /registry/deployments/kube-system/coredns -w json | grep -o '"mod_revision":[0-9]*' | cut -d: -f2)"`,
    );
    await p.keyboard.press("Enter");
    await waitForTerminal(p, /^OK$/m);
    await p.keyboard.press("Escape");
    await p.keyboard.press("Tab");
    expect(await focused()).not.toBe("Terminal: shell input");

    const title = "Find the resourceVersion of the coredns Deployment";
    await tabTo(new RegExp(`^Check: ${title}$`));
    await p.keyboard.press("Enter");
    await expect
      .poll(
        () =>
          task(p, title)
            .getByText(/^Passed: Right: resourceVersion \d+/)
            .count(),
        { timeout: 15_000 },
      )
      .toBe(1);
    await expect
      .poll(() =>
        p
          .getByRole("status")
          .filter({ hasText: `${title}: passed.` })
          .count(),
      )
      .toBe(1);

    // Hints one at a time, then Solve: the scripted solution is typed into the visible terminal and checked.
    const third = "Recover the IP pool's original CIDR";
    await tabTo(new RegExp(`^Show a hint \\(1 of 3\\): ${third}$`));
    await p.keyboard.press("Enter");
    await expect
      .poll(() =>
        task(p, third)
          .getByRole("list", { name: `Hints for ${third}` })
          .getByRole("listitem")
          .count(),
      )
      .toBe(1);
    expect(await focused()).toBe(`Show another hint (2 of 3): ${third}`);
    await p.keyboard.press("Enter");
    // The hint's Markdown backticks are code, not literal backticks.
    const hints = task(p, third).getByRole("list", { name: `Hints for ${third}` });
    await expect
      .poll(() =>
        hints.locator("code", { hasText: "etcdctl get <key> --rev=<create_revision> --print-value-only" }).count(),
      )
      .toBe(1);
    expect(await hints.textContent()).not.toContain("`");
    await tabTo(new RegExp(`^Solve: ${third}$`));
    await p.keyboard.press("Enter");
    // While that solution types, no other Solve (nor Run) can start one: they wait, and say why.
    const first = task(p, "Count the pods").getByRole("button", { name: "Solve: Count the pods" });
    await expect.poll(() => first.getAttribute("aria-disabled")).toBe("true");
    expect(await first.getAttribute("title")).toBe(`Wait: the solution of "${third}" is typing`);
    expect(
      await p
        .getByRole("button", { name: /^Run in the terminal/ })
        .first()
        .isDisabled(),
    ).toBe(true);
    await expect.poll(() => task(p, third).getByText("Done", { exact: true }).count(), { timeout: 60_000 }).toBe(1);
    await expect.poll(() => first.getAttribute("aria-disabled")).toBeNull();
    await waitForTerminal(p, /etcdctl put \/lab\/answers\/original-cidr "\$CIDR"/);

    // The members' numbers and the table are there on demand.
    await tabTo(/^Details$/);
    await p.keyboard.press("Enter");
    await expect.poll(() => dock(p).locator("table").isVisible()).toBe(true);
    const picture = await readClusterPicture(p);
    expect(picture.drawn.length).toBe(3);
    expect(picture.table.length).toBe(3);
    for (const node of picture.drawn) {
      const row = picture.table.find((r) => r["Member"] === node["Member"]);
      expect(row, `table row for ${node["Member"]}`).toBeDefined();
      expect(row?.["State"]?.startsWith(node["State"] ?? "?")).toBe(true);
      for (const field of ["Role", "Term", "Raft index", "Applied index", "DB size", "Leader changes"]) {
        expect([node["Member"], field, row?.[field]]).toEqual([node["Member"], field, node[field]]);
      }
    }
    await p.keyboard.press("Enter"); // and hidden again
    await expect.poll(() => dock(p).locator("table").isVisible()).toBe(false);

    // The members menu works from the keyboard: open with Enter, move with the arrows, close with Escape.
    await tabTo(/^Actions for m1/);
    await p.keyboard.press("Enter");
    expect(await focused()).toBe("Stop");
    await p.keyboard.press("ArrowDown");
    expect(await focused()).toBe("Kill");
    await p.keyboard.press("Escape");
    expect(await focused()).toMatch(/^Actions for m1/);
    expect(await dock(p).getByRole("menu").count()).toBe(0);
  }, 180_000);

  it("progress has one source, the server: Reset lab keeps passes in words, `lab reset --clear-progress` clears page and map", async () => {
    const p = page();
    const count = task(p, "Count the pods");
    await expect.poll(() => count.getByText("Done", { exact: true }).count(), { timeout: 20_000 }).toBe(1);
    await p.getByRole("button", { name: "Reset lab" }).click();
    await p.getByRole("button", { name: "Really reset? Click again" }).click();
    await expect
      .poll(() => count.locator(".result").textContent(), { timeout: 60_000 })
      .toMatch(/^Passed before the reset, today at \d\d:\d\d\. Check grades the cluster you have now\.$/);
    // Check grades the new cluster, where the answer key does not exist yet.
    await waitForTerminal(p, /\[01-what-lives-in-etcd\][^\n]*[$#]/, 30_000);
    await count.getByRole("button", { name: "Check: Count the pods" }).click();
    await expect
      .poll(() => count.locator(".result").textContent(), { timeout: 15_000 })
      .toMatch(
        /^Passed before the reset, today at \d\d:\d\d\. On this cluster it does not pass now: \/lab\/answers\/pod-count does not exist yet/,
      );
    expect(await count.getByText("Done", { exact: true }).count()).toBe(1);

    // (The reset replaces this very shell, so the page, not the prompt, says when it is done.)
    await typeCommand(p, "lab reset --clear-progress");
    await expect.poll(() => p.locator("[data-count]").textContent(), { timeout: 60_000 }).toBe("0 of 3 done");
    expect(await p.getByText("Done", { exact: true }).count()).toBe(0);
    await p.getByRole("link", { name: "etcd-lab" }).click();
    const card = p.getByRole("listitem").filter({ has: p.getByRole("link", { name: "What lives in etcd" }) });
    await expect.poll(() => card.locator("[data-progress]").textContent(), { timeout: 10_000 }).toBe("Not started");
  }, 180_000);

  it("lesson 2: kill the leader, lose quorum (put fails), restore it, and the tasks pass", async () => {
    const p = page();
    await p.goto(new URL("/lessons/raft-and-quorum/", p.url()).toString());
    await expect
      .poll(() => clusterSummary(p).textContent(), { timeout: 60_000 })
      .toMatch(/3 of 3 members up · leader m\d/);
    await waitForTerminal(p, /\[02-raft-and-quorum\]/, 30_000);

    const first = await leaderName(p);
    expect(first).toMatch(/^m[123]$/);
    await memberAction(p, first as string, "Kill");
    const second = await waitForLeader(p, first, 5_000);
    console.log(`e2e: ${first} killed, ${second.name} drawn as the new leader after ${second.ms} ms`);

    const survivor = second.name;
    const other = ["m1", "m2", "m3"].find((m) => m !== first && m !== survivor) as string;
    await memberAction(p, other, "Kill");
    await expect.poll(() => clusterSummary(p).textContent(), { timeout: 10_000 }).toMatch(/^Quorum lost: 1 of 3/);
    await typeCommand(p, "etcdctl put /lab/during-outage x");
    await waitForTerminal(p, /^Error: context deadline exceeded$/m, 20_000);
    console.log(`e2e: screenshot ${await saveScreenshot(p, "lesson-2-raft-and-quorum-quorum-lost")}`);

    await memberAction(p, other, "Start");
    await memberAction(p, first as string, "Start");
    await expect
      .poll(() => clusterSummary(p).textContent(), { timeout: 30_000 })
      .toMatch(/^3 of 3 members up · leader m\d/);
    const leader = await leaderName(p);
    await typeCommand(p, `etcdctl put /lab/after-recovery ${leader}`);
    await waitForTerminal(p, /^OK$/m);

    for (const title of [
      "Kill the leader and let a new one win",
      "Lose quorum, then restore it",
      "After recovery, write the new leader's name",
    ]) {
      const t = task(p, title);
      await t.getByRole("button", { name: `Check: ${title}` }).click();
      await expect.poll(() => t.getByText("Done", { exact: true }).count(), { timeout: 15_000 }).toBe(1);
    }
    expect(await members(p).count()).toBe(3);
    // For the picture: let the restarted members answer again (their badges read "Up, not answering" until then).
    await expect
      .poll(() => members(p).getByText("Up", { exact: true }).count(), { timeout: 30_000 })
      .toBe(3)
      .catch(() => console.warn("e2e: not every member answered before the screenshot"));
    console.log(`e2e: screenshot ${await saveScreenshot(p, "lesson-2-raft-and-quorum")}`);

    // The status table the lesson shows fits the 1280 px terminal: one line per member, every column in it.
    await typeAndWait(p, "clear; etcdctl endpoint status -w table | cut -s -d'|' -f2,10,12-15");
    const lines = (await terminalText(p)).split("\n").filter((l) => /^\s+(ENDPOINT|127\.0\.0\.1:\d+)\s+\|/.test(l));
    expect(lines.map((l) => l.split("|").length)).toEqual([6, 6, 6, 6]);

    // Start over on the page (a reset that clears the progress, with a confirmation): every task is not done,
    // here and on the course map.
    await p.getByRole("button", { name: "Start over" }).click();
    await p.getByRole("button", { name: "Really start over? Click again" }).click();
    await expect.poll(() => p.locator("[data-count]").textContent(), { timeout: 60_000 }).toBe("0 of 3 done");
    await p.getByRole("link", { name: "etcd-lab" }).click();
    const card = p.getByRole("listitem").filter({ has: p.getByRole("link", { name: "Raft and quorum" }) });
    await expect.poll(() => card.locator("[data-progress]").textContent(), { timeout: 10_000 }).toBe("Not started");
  }, 240_000);

  // One task of every lab in the course (new lessons are picked up from lessons/ and lab/ as they land): the
  // first task's solution typed into the page's terminal like a person would, then Check. Each lab's session is
  // closed afterwards, so the learner's session limit never gets in the way.
  for (const entry of labs) {
    it(`every lab: ${entry.lab}, task "${entry.task.title}" typed in the terminal, then Check`, async () => {
      const p = page();
      const started = Date.now();
      await p.goto(new URL(`/lessons/${entry.slug}/`, p.url()).toString());
      await waitForTerminal(p, new RegExp(`\\[${entry.lab}\\][^\\n]*[$#]`), 90_000);
      const t = task(p, entry.task.title);
      await expect.poll(() => t.count(), { timeout: 20_000 }).toBe(1);
      if (entry.task.goal) {
        const goal = (await t.locator(".task-goal").textContent()) ?? "";
        expect(goal.length).toBeGreaterThan(0);
        expect(goal).not.toMatch(/\{\{|`/); // parameters filled in, Markdown rendered
        if (entry.task.goal.includes("`")) expect(await t.locator(".task-goal code").count()).toBeGreaterThan(0);
      }
      for (const command of entry.task.solution) {
        for (const line of command.split("\n")) await typeAndWait(p, line);
      }
      await t.getByRole("button", { name: `Check: ${entry.task.title}` }).click();
      await expect.poll(() => t.getByText("Done", { exact: true }).count(), { timeout: 30_000 }).toBe(1);
      console.log(
        `e2e: ${entry.lab}: "${entry.task.title}" passed in ${Date.now() - started} ms (page, solution, Check)`,
      );
      await t.scrollIntoViewIfNeeded();
      console.log(`e2e: screenshot ${await saveScreenshot(p, `lab-${entry.lab}`)}`);
      await p.evaluate(`(async () => {
        const { sessions } = await (await fetch("/api/sessions")).json();
        for (const s of sessions.filter((x) => x.lab === ${JSON.stringify(entry.lab)}))
          await fetch("/api/sessions/" + s.id, { method: "DELETE" });
      })()`);
    }, 300_000);
  }
});
