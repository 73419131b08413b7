// The invite: a QR code (an SVG drawn by the server that served this page, /qr.svg; the page's script
// carries no QR encoder) and the address a person types, for the lobby or a table's page.

import { h } from "./dom";
import { t } from "./i18n";

/** The address of one of this client's pages ("#/t/ID"), as a phone opens it. */
export function pageAddress(page: string): string {
  return `${location.origin}/${page}`;
}

/** The QR code of `page` as an image, `size` CSS pixels square (0: as the style sheet sizes it). */
export function qrImage(page: string, size: number, label: string): HTMLImageElement {
  return h("img", {
    class: "qr",
    src: `/qr.svg?page=${encodeURIComponent(page)}`,
    width: size || undefined,
    height: size || undefined,
    alt: label,
  });
}

/** A QR code with its address under it, as the host's waiting screen and the TV show them. */
export function invite(page: string, size: number): HTMLElement {
  const address = pageAddress(page);
  return h(
    "figure",
    { class: "invite" },
    qrImage(page, size, t("qr.join", { address })),
    h("figcaption", {}, h("span", { class: "invite-hint" }, t("qr.hint")), h("a", { class: "invite-link", href: address }, address)),
  );
}
