// Links of workshop mode, without the DOM: an event's lessons (stored by the server as lesson slugs) resolved
// against the course the site was built from (embedded by the pages: course.ts catalogueOf; this module imports
// nothing at run time, so the course's schema code stays out of the browser), the lesson a board row's lab belongs to, and the join page's
// `next` parameter, which only ever leads back to a page of this site.

/** CatalogueLesson is what the workshop pages know of a lesson (embedded in the page at build time). */
export interface CatalogueLesson {
  /** id is the lesson's folder name, e.g. 01-what-lives-in-etcd. */
  id: string;
  /** slug is its URL name, e.g. what-lives-in-etcd. */
  slug: string;
  lab: string;
  title: string;
  number: number;
  /** href is the lesson page's path. */
  href: string;
}

/** EventLesson is one of an event's lessons as the join page lists it. */
export interface EventLesson {
  key: string;
  title: string;
  /** href is null when this site has no such lesson (the event names one from another build). */
  href: string | null;
}

/** findLesson matches a key from an event (slug, folder id or lab id, in that order) against the catalogue. */
export function findCatalogueLesson(key: string, catalogue: readonly CatalogueLesson[]): CatalogueLesson | undefined {
  return (
    catalogue.find((l) => l.slug === key) ?? catalogue.find((l) => l.id === key) ?? catalogue.find((l) => l.lab === key)
  );
}

/** eventLessons lists an event's lessons in the event's order, with links where this site has them. */
export function eventLessons(keys: readonly string[], catalogue: readonly CatalogueLesson[]): EventLesson[] {
  return keys.map((key) => {
    const lesson = findCatalogueLesson(key, catalogue);
    if (!lesson) return { key, title: key, href: null };
    return { key, title: `Lesson ${lesson.number}: ${lesson.title}`, href: lesson.href };
  });
}

/** lessonTitleForLab names the lesson that uses lab ("Lesson 2: Raft and quorum"), or the lab id itself. */
export function lessonTitleForLab(lab: string, catalogue: readonly CatalogueLesson[]): string {
  const lesson = catalogue.find((l) => l.lab === lab);
  return lesson ? `Lesson ${lesson.number}: ${lesson.title}` : lab;
}

/** joinPath is the join page, remembering the page to come back to. */
export function joinPath(next: string | null, base = "/"): string {
  const page = `${base}workshop/`;
  const back = next === null ? null : safeNext(next, base);
  return back ? `${page}?next=${encodeURIComponent(back)}` : page;
}

/**
 * safeNext accepts a `next` only when it is a path of this site (under base, no scheme, no `//host`, no
 * backslash tricks), so the join page can never send a learner elsewhere; anything else is null.
 */
export function safeNext(next: string, base = "/"): string | null {
  if (!next.startsWith(base) || next.startsWith("//") || /[\\\s]/.test(next)) return null;
  try {
    const url = new URL(next, "http://site.invalid");
    if (url.origin !== "http://site.invalid") return null;
    return `${url.pathname}${url.search}${url.hash}`;
  } catch {
    return null;
  }
}
