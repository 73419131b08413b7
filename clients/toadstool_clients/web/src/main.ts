// The browser client's entry point: one page, its screens chosen by the URL's fragment (#/ the lobby;
// #/t/ID a seat at table ID; #/t/ID/watch as a spectator; #/t/ID/display the table display; #/tv and
// #/t/ID/tv the TV screen, tv.ts).
// No token is ever in the URL: seats are kept in this browser's storage (storage.ts).

import { LobbyScreen } from "./lobby";
import { TableScreen } from "./table";
import type { Mode } from "./table";
import { TvScreen } from "./tv";
import { loadBoards, loadLanguage } from "./i18n";

const root = document.getElementById("app")!;
let current: { stop(): void } | null = null;

/** Bumped by every route: a screen whose boards' words arrive after the next route is not drawn. */
let routes = 0;

async function route(): Promise<void> {
  current?.stop();
  current = null;
  const mine = ++routes;
  // A table and the TV draw the games' boards: their words first (a chunk the lobby never needs).
  if (location.hash.startsWith("#/t/") || location.hash === "#/tv") {
    await loadBoards();
    if (mine !== routes) return;
  }
  const match = /^#\/t\/([^/]+)(?:\/(watch|display))?$/.exec(location.hash);
  const tv = /^#\/(?:t\/([^/]+)\/)?tv$/.exec(location.hash);
  if (tv) {
    const screen = new TvScreen(root, tv[1] === undefined ? null : decodeURIComponent(tv[1]));
    current = screen;
    screen.start();
  } else if (match) {
    const mode = (match[2] as Mode | undefined) ?? "play";
    const screen = new TableScreen(root, decodeURIComponent(match[1]), mode);
    current = screen;
    screen.start();
  } else {
    const screen = new LobbyScreen(root);
    current = screen;
    void screen.start();
  }
}

// The person's language first (a chunk of its own unless English), then the screen.
void loadLanguage().then(() => {
  window.addEventListener("hashchange", () => void route());
  void route();
});
