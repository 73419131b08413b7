// Building SVG elements for the game drawings (the Kart track): like dom.ts's h(), in the SVG namespace.
// Text goes in as text nodes, never as markup.

const NS = "http://www.w3.org/2000/svg";

/** An SVG element with attributes (numbers written with at most two decimals) and children. */
export function svg(tag: string, attrs: Record<string, string | number | undefined>, ...children: (SVGElement | string | null)[]): SVGElement {
  const element = document.createElementNS(NS, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === "") continue;
    element.setAttribute(key, typeof value === "number" ? String(Math.round(value * 100) / 100) : value);
  }
  for (const child of children) {
    if (child === null) continue;
    element.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return element;
}
