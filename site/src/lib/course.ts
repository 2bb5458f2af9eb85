// The course's shape: parts → chapters → lessons. lessons/course.json names the parts and chapters in order;
// each lesson's frontmatter says which part and chapter it belongs to and its order there. buildCourse joins
// the two, checks that they agree, and answers ordering questions (the map, next/previous).
import { z } from "zod";
import type { LessonFrontmatter } from "./lesson-schema.ts";
import { slugPattern } from "./lesson-schema.ts";
import type { CatalogueLesson } from "./workshop-links.ts";

const id = z.string().regex(slugPattern, "ids are lower-case words joined by dashes");

/** courseFileSchema validates lessons/course.json: the course title, its parts and their chapters, in order. */
export const courseFileSchema = z
  .object({
    title: z.string().min(1),
    parts: z
      .array(
        z
          .object({
            id,
            title: z.string().min(1),
            chapters: z.array(z.object({ id, title: z.string().min(1) }).strict()).min(1),
          })
          .strict(),
      )
      .min(1),
  })
  .strict();

/** CourseFile is the validated content of lessons/course.json. */
export type CourseFile = z.infer<typeof courseFileSchema>;

/** LessonEntry is one lesson as the content collection gives it: its id (folder name), file and frontmatter. */
export interface LessonEntry {
  /** id is the lesson folder name, e.g. "01-what-lives-in-etcd". */
  readonly id: string;
  /** file is the path shown in error messages, e.g. "lessons/01-what-lives-in-etcd/index.mdx". */
  readonly file: string;
  readonly data: LessonFrontmatter;
}

/** CourseLesson is a lesson placed in the course: its number, URL slug and neighbours. */
export interface CourseLesson extends LessonEntry {
  /** number is the 1-based position in the whole course. */
  readonly number: number;
  /** slug is the URL segment: the folder name without its "<nn>-" prefix. */
  readonly slug: string;
  readonly partTitle: string;
  readonly chapterTitle: string;
  readonly previousId: string | undefined;
  readonly nextId: string | undefined;
}

/** CourseChapter is a chapter with its lessons in order. */
export interface CourseChapter {
  readonly id: string;
  readonly title: string;
  readonly lessons: readonly CourseLesson[];
}

/** CoursePart is a part with its chapters in order (chapters without lessons are left out). */
export interface CoursePart {
  readonly id: string;
  readonly title: string;
  readonly chapters: readonly CourseChapter[];
}

/** Course is the whole ordered course. */
export interface Course {
  readonly title: string;
  readonly parts: readonly CoursePart[];
  /** lessons lists every lesson in course order. */
  readonly lessons: readonly CourseLesson[];
}

/** lessonSlug is the URL segment of a lesson folder: "01-what-lives-in-etcd" → "what-lives-in-etcd". */
export function lessonSlug(folder: string): string {
  return folder.replace(/^\d+-/, "");
}

/** lessonHref is a lesson page's path under base (base "/" or "/course/"). */
export function lessonHref(lesson: Pick<CourseLesson, "slug">, base = "/"): string {
  return `${base.endsWith("/") ? base : `${base}/`}lessons/${lesson.slug}/`;
}

/** catalogueOf is what the workshop pages embed of the course they were built with (lib/workshop-links.ts). */
export function catalogueOf(lessons: readonly CourseLesson[], base = "/"): CatalogueLesson[] {
  return lessons.map((l) => ({
    id: l.id,
    slug: l.slug,
    lab: l.data.lab,
    title: l.data.title,
    number: l.number,
    href: lessonHref(l, base),
  }));
}

/**
 * buildCourse orders lessons by part, chapter (as listed in course.json) and `order`. It throws one Error
 * listing every problem, each naming the lesson file and frontmatter field: an unknown part or chapter, two
 * lessons with the same order in a chapter, two lessons with the same URL slug.
 */
export function buildCourse(courseFile: unknown, entries: readonly LessonEntry[], courseFilePath: string): Course {
  const parsed = courseFileSchema.safeParse(courseFile);
  if (!parsed.success) {
    throw new Error(
      parsed.error.issues.map((i) => `${courseFilePath}: field "${i.path.join(".")}": ${i.message}`).join("\n"),
    );
  }
  const file = parsed.data;
  const problems: string[] = [];
  const bySlot = new Map<string, LessonEntry[]>();
  for (const entry of entries) {
    const part = file.parts.find((p) => p.id === entry.data.part);
    if (!part) {
      problems.push(
        `${entry.file}: frontmatter field "part": no part "${entry.data.part}" in ${courseFilePath} (known: ${file.parts.map((p) => p.id).join(", ")})`,
      );
      continue;
    }
    if (!part.chapters.some((c) => c.id === entry.data.chapter)) {
      problems.push(
        `${entry.file}: frontmatter field "chapter": no chapter "${entry.data.chapter}" in part "${part.id}" of ${courseFilePath} (known: ${part.chapters.map((c) => c.id).join(", ")})`,
      );
      continue;
    }
    const key = `${part.id}/${entry.data.chapter}`;
    bySlot.set(key, [...(bySlot.get(key) ?? []), entry]);
  }
  const slugs = new Map<string, string>();
  for (const entry of entries) {
    const s = lessonSlug(entry.id);
    const other = slugs.get(s);
    if (other !== undefined) problems.push(`${entry.file}: its URL slug "${s}" is also used by ${other}`);
    else slugs.set(s, entry.file);
  }
  for (const group of bySlot.values()) {
    const seen = new Map<number, string>();
    for (const entry of group) {
      const other = seen.get(entry.data.order);
      if (other !== undefined) {
        problems.push(
          `${entry.file}: frontmatter field "order": ${entry.data.order} is also used by ${other} in chapter "${entry.data.chapter}"`,
        );
      } else seen.set(entry.data.order, entry.file);
    }
  }
  if (problems.length) throw new Error(problems.join("\n"));

  const ordered: Array<{ entry: LessonEntry; partTitle: string; chapterTitle: string }> = [];
  for (const part of file.parts) {
    for (const chapter of part.chapters) {
      const group = [...(bySlot.get(`${part.id}/${chapter.id}`) ?? [])].sort((a, b) => a.data.order - b.data.order);
      for (const entry of group) ordered.push({ entry, partTitle: part.title, chapterTitle: chapter.title });
    }
  }
  const lessons: CourseLesson[] = ordered.map(({ entry, partTitle, chapterTitle }, i) => ({
    ...entry,
    number: i + 1,
    slug: lessonSlug(entry.id),
    partTitle,
    chapterTitle,
    previousId: ordered[i - 1]?.entry.id,
    nextId: ordered[i + 1]?.entry.id,
  }));
  const parts: CoursePart[] = file.parts
    .map((part) => ({
      id: part.id,
      title: part.title,
      chapters: part.chapters
        .map((chapter) => ({
          id: chapter.id,
          title: chapter.title,
          lessons: lessons.filter((l) => l.data.part === part.id && l.data.chapter === chapter.id),
        }))
        .filter((c) => c.lessons.length > 0),
    }))
    .filter((p) => p.chapters.length > 0);
  return { title: file.title, parts, lessons };
}

/** findLesson returns the course lesson with the given folder id, or undefined. */
export function findLesson(course: Course, lessonId: string | undefined): CourseLesson | undefined {
  return lessonId === undefined ? undefined : course.lessons.find((l) => l.id === lessonId);
}
