import { describe, expect, it } from "vitest";
import { describeIssues, lessonSchema, parseLessonFrontmatter } from "./lesson-schema.ts";

const good = {
  title: "Raft and quorum",
  summary: "Kill members and watch the cluster elect a leader.",
  durationMinutes: 30,
  lab: "02-raft-and-quorum",
  part: "foundations",
  chapter: "consensus",
  order: 1,
  objectives: ["Say what quorum is"],
};

describe("lessonSchema", () => {
  it("accepts a complete frontmatter and defaults prerequisites to none", () => {
    expect(parseLessonFrontmatter("x.mdx", good)).toEqual({ ...good, prerequisites: [] });
  });

  it("names the file and the field of a missing title", () => {
    const { title: _title, ...rest } = good;
    expect(() => parseLessonFrontmatter("lessons/02-raft/index.mdx", rest)).toThrow(
      'lessons/02-raft/index.mdx: frontmatter field "title": title is required',
    );
  });

  it("names every bad field at once", () => {
    const bad = { ...good, order: 0, lab: "Raft Lab", durationMinutes: "30 min" };
    const result = lessonSchema.safeParse(bad);
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(describeIssues("f.mdx", result.error.issues).sort()).toEqual([
      'f.mdx: frontmatter field "durationMinutes": durationMinutes must be a number of minutes, like 25',
      'f.mdx: frontmatter field "lab": lab must be lower-case words joined by dashes, like "01-what-lives-in-etcd"',
      'f.mdx: frontmatter field "order": order starts at 1',
    ]);
  });

  it("rejects unknown fields so a misspelling is caught", () => {
    expect(() => parseLessonFrontmatter("f.mdx", { ...good, objectivs: ["x"] })).toThrow(
      'f.mdx: frontmatter has unknown field(s) "objectivs"',
    );
  });

  it("names the index of a bad list item", () => {
    expect(() => parseLessonFrontmatter("f.mdx", { ...good, objectives: ["ok", ""] })).toThrow(
      'f.mdx: frontmatter field "objectives.1": each objective must not be empty',
    );
  });
});
