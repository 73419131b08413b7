// What a screen reader says without being asked: "your turn" and each new event, through one live region
// that stays in the page (the screens redraw their elements on every update, and a live region drawn
// anew is not announced reliably).

let region: HTMLElement | null = null;

/** Say `text` politely (after what is being read now). */
export function announce(text: string): void {
  if (!text) return;
  if (region === null || !region.isConnected) {
    region = document.createElement("div");
    region.className = "visually-hidden";
    region.setAttribute("aria-live", "polite");
    region.setAttribute("role", "status");
    region.id = "announcer";
    document.body.appendChild(region);
  }
  const line = document.createElement("p");
  line.textContent = text;
  region.appendChild(line);
  while (region.childElementCount > 5) region.firstElementChild!.remove();
}
