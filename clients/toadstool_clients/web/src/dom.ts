// Building the page's elements. Every name and free text goes in as a text node (textContent), never as
// HTML: there is no innerHTML anywhere in this client, so a player called "<img onerror=...>" is just text.

export type Child = Node | string | number | null | undefined | false;
export interface Attrs {
  class?: string;
  title?: string;
  onclick?: (event: MouseEvent) => void;
  [attribute: string]: unknown;
}

/** An element with attributes and children; strings become text nodes. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "onclick") element.addEventListener("click", value as EventListener);
    else if (key === "oninput") element.addEventListener("input", value as EventListener);
    else if (key === "onchange") element.addEventListener("change", value as EventListener);
    else if (key === "onsubmit") element.addEventListener("submit", value as EventListener);
    else if (key === "class") element.className = String(value);
    // Through the CSSOM: the page's Content-Security-Policy refuses style attributes ("--rows:4;...").
    else if (key === "style") for (const rule of String(value).split(";")) setStyle(element, rule);
    else if (key === "value" && "value" in element) (element as HTMLInputElement).value = String(value);
    else if (key === "checked" && "checked" in element) (element as HTMLInputElement).checked = Boolean(value);
    else element.setAttribute(key, value === true ? "" : String(value));
  }
  append(element, children);
  return element;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === "string" || typeof child === "number" ? document.createTextNode(String(child)) : child);
  }
}

/** Replace everything in `parent` with `children`. */
export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** The largest zoom from `low` to `high` at which `fits` holds, to within 2 % (bisection: a dozen layouts), or
 * null if it holds at none (the TV's board, the table display's). */
export function largestZoom(fits: (zoom: number) => boolean, low = 0.6, high = 2.4): number | null {
  if (fits(high)) return high;
  if (!fits(low)) return null;
  while (high / low > 1.02) {
    const middle = Math.sqrt(low * high);
    if (fits(middle)) low = middle;
    else high = middle;
  }
  return low;
}

function setStyle(element: HTMLElement, rule: string): void {
  const colon = rule.indexOf(":");
  if (colon > 0) element.style.setProperty(rule.slice(0, colon).trim(), rule.slice(colon + 1).trim());
}
