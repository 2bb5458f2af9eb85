// Loads the course at build time: the lessons collection plus <lessons>/course.json, joined by buildCourse.
// Pages call loadCourse(); a broken reference (unknown part, duplicate order) fails the build naming the file.
import { getCollection } from "astro:content";
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { Course } from "./course.ts";
import { buildCourse } from "./course.ts";

let cached: Promise<Course> | undefined;

/** loadCourse returns the ordered course (memoised for the build). */
export function loadCourse(): Promise<Course> {
  cached ??= load();
  return cached;
}

async function load(): Promise<Course> {
  const dir = process.env.ETCD_LAB_LESSONS_DIR ?? "../lessons";
  const courseFilePath = join(dir, "course.json");
  const shown = (path: string) => relative(join(dir, ".."), path);
  let courseFile: unknown;
  try {
    courseFile = JSON.parse(readFileSync(courseFilePath, "utf8"));
  } catch (err) {
    throw new Error(`${shown(courseFilePath)}: cannot read the course outline (${(err as Error).message})`);
  }
  const entries = (await getCollection("lessons")).map((e) => ({
    id: e.id,
    file: shown(join(dir, e.id, "index.mdx")),
    data: e.data,
  }));
  return buildCourse(courseFile, entries, shown(courseFilePath));
}
