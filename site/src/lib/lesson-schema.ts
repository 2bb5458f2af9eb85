// The lesson frontmatter contract. Astro's content collection validates every lessons/<nn>-<slug>/index.mdx
// against lessonSchema at build time; the messages are written for the author who has to fix the file.
import { z } from "zod";

/** slugPattern is the shape of lab, part and chapter ids: lower-case words joined by dashes, digits allowed. */
export const slugPattern = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

const slug = (what: string) =>
  z
    .string({ required_error: `${what} is required`, invalid_type_error: `${what} must be a string` })
    .regex(slugPattern, `${what} must be lower-case words joined by dashes, like "01-what-lives-in-etcd"`);

const line = (what: string, maxChars: number) =>
  z
    .string({ required_error: `${what} is required`, invalid_type_error: `${what} must be a string` })
    .trim()
    .min(1, `${what} must not be empty`)
    .max(maxChars, `${what} must be at most ${maxChars} characters`);

/** lessonSchema validates a lesson's frontmatter. Unknown keys are errors, so a misspelt field is caught. */
export const lessonSchema = z
  .object({
    title: line("title", 80),
    summary: line("summary", 300),
    durationMinutes: z
      .number({
        required_error: "durationMinutes is required (the time a learner needs, in minutes)",
        invalid_type_error: "durationMinutes must be a number of minutes, like 25",
      })
      .int("durationMinutes must be a whole number of minutes")
      .min(1, "durationMinutes must be at least 1")
      .max(240, "durationMinutes must be at most 240 (split longer lessons)"),
    lab: slug("lab"),
    part: slug("part"),
    chapter: slug("chapter"),
    order: z
      .number({
        required_error: "order is required (the lesson's position in its chapter, from 1)",
        invalid_type_error: "order must be a number",
      })
      .int("order must be a whole number")
      .min(1, "order starts at 1"),
    objectives: z
      .array(line("each objective", 200), {
        required_error: "objectives is required (what the learner can do after the lesson)",
        invalid_type_error: "objectives must be a list of strings",
      })
      .min(1, "objectives must list at least one objective")
      .max(8, "objectives must list at most 8 objectives"),
    prerequisites: z
      .array(line("each prerequisite", 200), { invalid_type_error: "prerequisites must be a list of strings" })
      .max(8, "prerequisites must list at most 8 items")
      .default([]),
  })
  .strict();

/** LessonFrontmatter is a validated lesson frontmatter. */
export type LessonFrontmatter = z.infer<typeof lessonSchema>;

/**
 * describeIssues turns zod issues into one line per problem, naming the file and the field, e.g.
 * `lessons/02-raft/index.mdx: frontmatter field "order": order starts at 1`.
 */
export function describeIssues(file: string, issues: readonly z.ZodIssue[]): string[] {
  return issues.map((issue) => {
    if (issue.code === "unrecognized_keys") {
      return `${file}: frontmatter has unknown field(s) ${issue.keys.map((k) => `"${k}"`).join(", ")}`;
    }
    const field = issue.path.length ? issue.path.join(".") : "(frontmatter)";
    return `${file}: frontmatter field "${field}": ${issue.message}`;
  });
}

/** parseLessonFrontmatter validates data and returns it, or throws one Error listing every problem in file. */
export function parseLessonFrontmatter(file: string, data: unknown): LessonFrontmatter {
  const result = lessonSchema.safeParse(data);
  if (result.success) return result.data;
  throw new Error(describeIssues(file, result.error.issues).join("\n"));
}
