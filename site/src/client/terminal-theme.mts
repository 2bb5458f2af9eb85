// The terminals' look, shared by the lesson's shells (terminal-element.mts) and the board's read-only view.

/** terminalFont is the terminals' font stack (system monospace fonts only). */
export const terminalFont =
  'ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", "Liberation Mono", Menlo, Consolas, monospace';

/** terminalTheme is the terminals' dark palette. */
export const terminalTheme = {
  background: "#14181d",
  foreground: "#e6e6e6",
  cursor: "#f0c674",
  cursorAccent: "#14181d",
  selectionBackground: "#3d5a7a",
  black: "#1d2126",
  red: "#f07178",
  green: "#9ece6a",
  yellow: "#e0af68",
  blue: "#7aa2f7",
  magenta: "#c792ea",
  cyan: "#7dcfff",
  white: "#d0d4da",
  brightBlack: "#6b7280",
  brightRed: "#ff8b92",
  brightGreen: "#b5e08b",
  brightYellow: "#f0c674",
  brightBlue: "#9ab8ff",
  brightMagenta: "#dcb0ff",
  brightCyan: "#a5e3ff",
  brightWhite: "#ffffff",
};
