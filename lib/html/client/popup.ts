/* The pieces both maps' popups are made of, and the one escape their attributions need. */

/** Text for HTML (a basemap's attribution, which Leaflet and MapLibre insert as HTML). */
export function escapeHtml(text: unknown): string {
  const entities: Record<string, string> = {
    "&": "&amp;",
    "<": "&lt;",
    ">": "&gt;",
    '"': "&quot;",
    "'": "&#39;",
  };
  return String(text).replace(/[&<>"']/g, (c) => entities[c]!);
}

/** A long hex string shortened to its ends (0x1234…abcd); anything else as it is. */
export function short(hex: unknown): unknown {
  return typeof hex === "string" && hex.length > 12 ? `${hex.slice(0, 6)}\u2026${hex.slice(-4)}` : hex;
}

/** An ISO timestamp to the minute, in UTC; "none" when there is none. */
export function when(iso: unknown): string {
  return typeof iso === "string" ? `${iso.slice(0, 16).replace("T", " ")} UTC` : "none";
}

/** A new element under `parent`, with its text and class when given. */
export function add<K extends keyof HTMLElementTagNameMap>(
  parent: HTMLElement,
  tag: K,
  text?: string,
  className?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  parent.appendChild(node);
  return node;
}

/** What a proof's popup shows: its memo or location, event time, chain, revoked or not, prover; a link to its page. */
export function proofPopup(
  p: Record<string, unknown>,
  revoked: boolean,
  link?: { href: string; title: string },
): HTMLDivElement {
  const box = document.createElement("div");
  add(box, "div", String(p.memo || p.location || "Location proof"), "title");
  const dl = add(box, "dl");
  const rows: [string, unknown][] = [
    ["Event", when(p.event_timestamp)],
    ["Chain", p.chain],
    ["Revoked", revoked ? "yes" : "no"],
    ["Prover", short(p.prover)],
  ];
  for (const [name, value] of rows) {
    add(dl, "dt", name);
    const dd = add(dl, "dd", value === undefined || value === null ? "" : String(value));
    if (name === "Prover" && p.prover) dd.title = String(p.prover);
  }
  if (link) {
    const a = add(box, "a", "Proof details \u2192", "more");
    a.href = link.href;
    a.title = link.title;
  }
  return box;
}
