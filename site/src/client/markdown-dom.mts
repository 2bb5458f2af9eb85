// Lab texts (goals, hints, check messages) into the page: lib/inline-markdown.ts parses, this file builds the
// elements with textContent only, so nothing in a message is ever read as HTML.
import { parseInline } from "../lib/inline-markdown.ts";

const tags = { code: "code", strong: "strong", em: "em" } as const;

/** setMarkdown replaces el's content with the rendered inline Markdown of text. */
export function setMarkdown(el: HTMLElement, text: string): void {
  el.replaceChildren(
    ...parseInline(text).map((piece) => {
      if (piece.kind === "text") return document.createTextNode(piece.text);
      const node = document.createElement(tags[piece.kind]);
      node.textContent = piece.text;
      return node;
    }),
  );
}
