import { describe, expect, it } from "vitest";
import type { LessonEntry } from "./course.ts";
import { buildCourse, lessonHref, lessonSlug } from "./course.ts";
import type { LessonFrontmatter } from "./lesson-schema.ts";

const courseFile = {
  title: "etcd, hands on",
  parts: [
    {
      id: "foundations",
      title: "Foundations",
      chapters: [
        { id: "data", title: "The data" },
        { id: "consensus", title: "Consensus" },
      ],
    },
    { id: "operations", title: "Operations", chapters: [{ id: "backup", title: "Backup" }] },
  ],
};

function entry(id: string, data: Partial<LessonFrontmatter>): LessonEntry {
  return {
    id,
    file: `lessons/${id}/index.mdx`,
    data: {
      title: id,
      summary: "s",
      durationMinutes: 10,
      lab: id,
      part: "foundations",
      chapter: "data",
      order: 1,
      objectives: ["o"],
      prerequisites: [],
      ...data,
    },
  };
}

describe("buildCourse", () => {
  it("orders lessons by part, chapter and order, whatever order they arrive in", () => {
    const course = buildCourse(
      courseFile,
      [
        entry("03-backup", { part: "operations", chapter: "backup" }),
        entry("02-raft", { chapter: "consensus" }),
        entry("01b-more-data", { order: 2 }),
        entry("01-data", { order: 1 }),
      ],
      "lessons/course.json",
    );
    expect(course.lessons.map((l) => [l.number, l.id, l.previousId, l.nextId])).toEqual([
      [1, "01-data", undefined, "01b-more-data"],
      [2, "01b-more-data", "01-data", "02-raft"],
      [3, "02-raft", "01b-more-data", "03-backup"],
      [4, "03-backup", "02-raft", undefined],
    ]);
    expect(course.parts.map((p) => [p.title, p.chapters.map((c) => c.title)])).toEqual([
      ["Foundations", ["The data", "Consensus"]],
      ["Operations", ["Backup"]],
    ]);
  });

  it("leaves out chapters and parts that have no lessons yet", () => {
    const course = buildCourse(courseFile, [entry("01-data", {})], "lessons/course.json");
    expect(course.parts).toHaveLength(1);
    expect(course.parts[0]?.chapters.map((c) => c.id)).toEqual(["data"]);
  });

  it("names the file and field of an unknown part or chapter", () => {
    expect(() => buildCourse(courseFile, [entry("01-data", { part: "basics" })], "lessons/course.json")).toThrow(
      'lessons/01-data/index.mdx: frontmatter field "part": no part "basics" in lessons/course.json (known: foundations, operations)',
    );
    expect(() => buildCourse(courseFile, [entry("01-data", { chapter: "backup" })], "lessons/course.json")).toThrow(
      'lessons/01-data/index.mdx: frontmatter field "chapter": no chapter "backup" in part "foundations"',
    );
  });

  it("rejects two lessons with the same order in a chapter", () => {
    expect(() => buildCourse(courseFile, [entry("01-a", {}), entry("02-b", {})], "lessons/course.json")).toThrow(
      'lessons/02-b/index.mdx: frontmatter field "order": 1 is also used by lessons/01-a/index.mdx in chapter "data"',
    );
  });

  it("rejects two folders that map to the same URL", () => {
    expect(() =>
      buildCourse(courseFile, [entry("01-a", {}), entry("02-a", { order: 2 })], "lessons/course.json"),
    ).toThrow('lessons/02-a/index.mdx: its URL slug "a" is also used by lessons/01-a/index.mdx');
  });

  it("rejects a malformed course.json naming the field", () => {
    expect(() => buildCourse({ title: "x", parts: [] }, [], "lessons/course.json")).toThrow(
      'lessons/course.json: field "parts"',
    );
  });
});

describe("lesson URLs", () => {
  it("drop the number prefix and respect the base", () => {
    expect(lessonSlug("01-what-lives-in-etcd")).toBe("what-lives-in-etcd");
    expect(lessonHref({ slug: "raft-and-quorum" })).toBe("/lessons/raft-and-quorum/");
    expect(lessonHref({ slug: "raft-and-quorum" }, "/course")).toBe("/course/lessons/raft-and-quorum/");
  });
});
