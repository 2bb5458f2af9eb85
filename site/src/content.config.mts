// The lessons collection: every <lessons>/<nn>-<slug>/index.mdx. Frontmatter is validated by lessonSchema
// before Astro sees it, so a bad lesson fails `astro build` (and `astro dev`) with our message, which names
// the file and each bad field. The folder comes from ETCD_LAB_LESSONS_DIR, set by astro.config.mjs (../lessons
// unless overridden).
import type { Loader } from "astro/loaders";
import { glob } from "astro/loaders";
import { defineCollection } from "astro:content";
import { dirname, relative, resolve } from "node:path";
import { lessonSchema, parseLessonFrontmatter } from "./lib/lesson-schema.ts";

const lessonsDir = process.env.ETCD_LAB_LESSONS_DIR ?? "../lessons";

/** lessonLoader is Astro's glob loader with our frontmatter check in front of Astro's own. */
function lessonLoader(): Loader {
  const inner = glob({
    pattern: "*/index.mdx",
    base: lessonsDir,
    generateId: ({ entry }) => entry.split("/")[0] ?? entry,
  });
  return {
    name: "etcd-lab-lessons",
    load: (context) =>
      inner.load({
        ...context,
        parseData: (props) => {
          // Named as the author sees it: "lessons/01-what-lives-in-etcd/index.mdx".
          const file = relative(dirname(resolve(lessonsDir)), props.filePath ?? `${lessonsDir}/${props.id}/index.mdx`);
          parseLessonFrontmatter(file, props.data);
          return context.parseData(props);
        },
      }),
  };
}

/** collections registers the lessons collection with Astro. */
export const collections = { lessons: defineCollection({ loader: lessonLoader(), schema: lessonSchema }) };
