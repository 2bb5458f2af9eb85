// The lesson page's splitter arithmetic: how wide the lesson text may be beside the lab, and what a key does.

/** lessonWidthKey is the localStorage key of the learner's chosen text width (a layout preference). */
export const lessonWidthKey = "etcd-lab:layout:lesson-width";

/** textMinRem and labMinRem bound the split: the text stays readable, the lab keeps a usable terminal. */
export const textMinRem = 16;
export const labMinRem = 24;
const splitterRem = 0.75;

/** clampLessonWidth keeps a text width within what the layout of `layoutWidth` px allows. */
export function clampLessonWidth(px: number, layoutWidth: number, rem: number): number {
  const max = Math.max(textMinRem * rem, layoutWidth - (labMinRem + splitterRem) * rem);
  return Math.round(Math.min(max, Math.max(textMinRem * rem, px)));
}

/**
 * splitterStep is the new text width after a key on the splitter (WAI-ARIA window splitter): the arrows move
 * it by 2 rem, Home and End go to the ends, Enter restores the default (null); undefined for any other key.
 */
export function splitterStep(
  key: string,
  current: number,
  layoutWidth: number,
  rem: number,
): number | null | undefined {
  switch (key) {
    case "ArrowLeft":
      return clampLessonWidth(current - 2 * rem, layoutWidth, rem);
    case "ArrowRight":
      return clampLessonWidth(current + 2 * rem, layoutWidth, rem);
    case "Home":
      return clampLessonWidth(0, layoutWidth, rem);
    case "End":
      return clampLessonWidth(layoutWidth, layoutWidth, rem);
    case "Enter":
      return null;
    default:
      return undefined;
  }
}
