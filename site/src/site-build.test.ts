// The build refuses a lesson with a bad frontmatter and says which file and field. This runs the real
// `astro build` over a copy of the lessons with one lesson broken.
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const repo = join(import.meta.dirname, "..", "..");
const work = mkdtempSync(join(tmpdir(), "etcd-lab-site-build-"));

afterAll(() => rmSync(work, { recursive: true, force: true }));

function buildWith(lessonsDir: string): { status: number | null; output: string } {
  const result = spawnSync(
    process.execPath,
    [join(repo, "node_modules/astro/astro.js"), "build", "--root", join(repo, "site"), "--silent"],
    {
      cwd: repo,
      encoding: "utf8",
      timeout: 120_000,
      env: {
        ...process.env,
        ASTRO_TELEMETRY_DISABLED: "1",
        ETCD_LAB_LESSONS_DIR: lessonsDir,
        ETCD_LAB_ASTRO_CACHE_DIR: join(work, "cache"),
        // Never overwrite the real site/dist: a failing build stops before writing, and this is a backstop.
        ETCD_LAB_SITE_OUT_DIR: join(repo, "site", ".astro", `test-out-${process.pid}`),
      },
    },
  );
  return { status: result.status, output: `${result.stdout}\n${result.stderr}` };
}

describe("astro build", () => {
  it("fails on a bad lesson frontmatter, naming the file and each field", () => {
    const lessons = join(work, "lessons");
    cpSync(join(repo, "lessons"), lessons, { recursive: true });
    const file = join(lessons, "01-what-lives-in-etcd", "index.mdx");
    const broken = readFileSync(file, "utf8")
      .replace(/^title: .*$/m, "titel: What lives in etcd")
      .replace(/^order: .*$/m, "order: 0");
    writeFileSync(file, broken);

    const { status, output } = buildWith(lessons);

    expect(status).not.toBe(0);
    expect(output).toContain('lessons/01-what-lives-in-etcd/index.mdx: frontmatter field "title": title is required');
    expect(output).toContain('lessons/01-what-lives-in-etcd/index.mdx: frontmatter field "order": order starts at 1');
    expect(output).toContain('lessons/01-what-lives-in-etcd/index.mdx: frontmatter has unknown field(s) "titel"');
  }, 120_000);
});
