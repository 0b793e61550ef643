/**
 * Every value that reaches an HTML page goes through escapeHtml; data for the page's scripts travels as a JSON data
 * block (never executed), so the pages need no inline script and the CSP can forbid it (lib/html/layout.ts).
 */
const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

export const escapeHtml = (value: unknown): string =>
  String(value ?? "").replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** JSON inside <script type="application/json">: `<` is escaped so no value can close the element. */
export const jsonBlock = (id: string, data: unknown): string =>
  `<script type="application/json" id="${escapeHtml(id)}">${JSON.stringify(data).replace(/</g, "\\u003c")}</script>`;
