// The Markdown of lab texts (task goals, hints, check messages) as inline pieces: `code`, **strong** and
// *emphasis* (or _emphasis_), the rest plain text. The client builds elements from the pieces with
// textContent, never innerHTML, so a message cannot inject markup. Unclosed markers stay literal text.

/** Inline is one piece of a parsed text. */
export interface Inline {
  kind: "text" | "code" | "strong" | "em";
  text: string;
}

/** parseInline splits text into pieces; adjacent text pieces are merged. */
export function parseInline(text: string): Inline[] {
  const out: Inline[] = [];
  const push = (kind: Inline["kind"], t: string) => {
    if (!t) return;
    const last = out[out.length - 1];
    if (kind === "text" && last?.kind === "text") last.text += t;
    else out.push({ kind, text: t });
  };
  let i = 0;
  let plain = "";
  const flush = () => {
    push("text", plain);
    plain = "";
  };
  while (i < text.length) {
    const c = text[i] as string;
    if (c === "\\" && i + 1 < text.length && "`*_\\".includes(text[i + 1] as string)) {
      plain += text[i + 1];
      i += 2;
      continue;
    }
    if (c === "`") {
      // A code span opens with a run of backticks and closes with a run of the same length (CommonMark).
      let n = 0;
      while (text[i + n] === "`") n++;
      const fence = "`".repeat(n);
      let close = text.indexOf(fence, i + n);
      while (close !== -1 && text[close + n] === "`") close = text.indexOf(fence, close + n + 1);
      if (close === -1) {
        plain += fence;
        i += n;
        continue;
      }
      let code = text.slice(i + n, close);
      if (code.length > 2 && code.startsWith(" ") && code.endsWith(" ") && code.trim() !== "") code = code.slice(1, -1);
      flush();
      push("code", code);
      i = close + n;
      continue;
    }
    if (c === "*" && text[i + 1] === "*") {
      const close = text.indexOf("**", i + 2);
      if (close > i + 2 && text[i + 2] !== " " && text[close - 1] !== " ") {
        flush();
        push("strong", text.slice(i + 2, close));
        i = close + 2;
        continue;
      }
    } else if (c === "*" || (c === "_" && !/\w/.test(text[i - 1] ?? ""))) {
      const close = text.indexOf(c, i + 1);
      const after = text[close + 1] ?? "";
      if (
        close > i + 1 &&
        text[i + 1] !== " " &&
        text[close - 1] !== " " &&
        !(c === "_" && /\w/.test(after)) &&
        !(c === "*" && after === "*")
      ) {
        flush();
        push("em", text.slice(i + 1, close));
        i = close + 1;
        continue;
      }
    }
    plain += c;
    i++;
  }
  flush();
  return out;
}
