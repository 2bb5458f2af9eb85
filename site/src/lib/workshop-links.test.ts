import { describe, expect, it } from "vitest";
import type { CourseLesson } from "./course.ts";
import { catalogueOf } from "./course.ts";
import type { CatalogueLesson } from "./workshop-links.ts";
import { eventLessons, joinPath, lessonTitleForLab, safeNext } from "./workshop-links.ts";

const catalogue: CatalogueLesson[] = [
  {
    id: "01-what-lives-in-etcd",
    slug: "what-lives-in-etcd",
    lab: "01-what-lives-in-etcd",
    title: "What lives in etcd",
    number: 1,
    href: "/lessons/what-lives-in-etcd/",
  },
  {
    id: "02-raft-and-quorum",
    slug: "raft-and-quorum",
    lab: "02-raft-and-quorum",
    title: "Raft and quorum",
    number: 2,
    href: "/lessons/raft-and-quorum/",
  },
];

describe("eventLessons", () => {
  it("keeps the event's order and links each lesson by slug, folder id or lab id", () => {
    expect(eventLessons(["raft-and-quorum", "01-what-lives-in-etcd"], catalogue)).toEqual([
      { key: "raft-and-quorum", title: "Lesson 2: Raft and quorum", href: "/lessons/raft-and-quorum/" },
      { key: "01-what-lives-in-etcd", title: "Lesson 1: What lives in etcd", href: "/lessons/what-lives-in-etcd/" },
    ]);
  });

  it("lists a lesson this site does not have without a link", () => {
    expect(eventLessons(["gone"], catalogue)).toEqual([{ key: "gone", title: "gone", href: null }]);
  });
});

describe("lessonTitleForLab", () => {
  it("names the lesson of a lab, or the lab itself", () => {
    expect(lessonTitleForLab("02-raft-and-quorum", catalogue)).toBe("Lesson 2: Raft and quorum");
    expect(lessonTitleForLab("99-other", catalogue)).toBe("99-other");
  });
});

describe("joinPath and safeNext", () => {
  it("remembers a page of this site to come back to", () => {
    expect(joinPath("/lessons/raft-and-quorum/")).toBe("/workshop/?next=%2Flessons%2Fraft-and-quorum%2F");
    expect(joinPath(null)).toBe("/workshop/");
    expect(safeNext("/lessons/a/?x=1#t")).toBe("/lessons/a/?x=1#t");
  });

  it("never leads off the site", () => {
    for (const bad of [
      "https://evil.example/",
      "//evil.example/x",
      "/\\evil.example",
      "javascript:alert(1)",
      "lessons/a",
      "/ x",
    ]) {
      expect(safeNext(bad), bad).toBeNull();
    }
    expect(joinPath("https://evil.example/")).toBe("/workshop/");
  });

  it("respects a base path", () => {
    expect(safeNext("/course/lessons/a/", "/course/")).toBe("/course/lessons/a/");
    expect(safeNext("/lessons/a/", "/course/")).toBeNull();
    expect(joinPath(null, "/course/")).toBe("/course/workshop/");
  });
});

describe("catalogueOf", () => {
  it("keeps id, slug, lab, title and number of each lesson", () => {
    const lesson = {
      id: "02-raft-and-quorum",
      slug: "raft-and-quorum",
      number: 2,
      data: { lab: "02-raft-and-quorum", title: "Raft and quorum" },
    } as unknown as CourseLesson;
    expect(catalogueOf([lesson])).toEqual([catalogue[1]]);
    expect(catalogueOf([lesson], "/course/")[0]?.href).toBe("/course/lessons/raft-and-quorum/");
  });
});
